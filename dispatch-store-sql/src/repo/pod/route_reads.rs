//! The proof of delivery of a whole route, one query per kind (photos, signatures and their
//! images, tracking tokens), for route and plan reads that show it on every stop: reading it per
//! stop cost five queries a stop.

use std::collections::{HashMap, HashSet};

use crate::sql::{params_from_iter, Connection, Statement};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::pod::{ImageMeta, StopSignature};
use dispatch_core::ports::store::StoreError;

use super::{image_meta, image_row, signature_row, Db, Sql, IMAGE_COLUMNS};
use crate::repo::IN_CHUNK;

impl<C: Connection> Db<C> {
    pub(super) fn route_photos(
        &self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, ImageMeta)>, StoreError> {
        let wanted: HashSet<i64> = order_ids.iter().copied().collect();
        let mut q = self
            .0
            .prepare_cached(&format!(
                "SELECT {IMAGE_COLUMNS}, order_id FROM pod_images \
                 WHERE depot_id = ?1 AND route_id = ?2 AND kind = 'PHOTO' ORDER BY id"
            ))
            .st()?;
        let rows = q
            .query_map(crate::sql::params![scope.depot_id, route_id], |r| {
                Ok((r.get::<_, Option<i64>>(12)?, image_row(r)?))
            })
            .st()?;
        let mut out = Vec::new();
        for row in rows {
            let (order, image) = row.st()?;
            if let Some(order) = order.filter(|o| wanted.contains(o)) {
                out.push((order, image_meta(image)?));
            }
        }
        Ok(out)
    }

    pub(super) fn route_signatures(
        &self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, StopSignature, ImageMeta)>, StoreError> {
        let wanted: HashSet<i64> = order_ids.iter().copied().collect();
        let signatures: Vec<(i64, StopSignature)> = {
            let mut q = self
                .0
                .prepare_cached(
                    "SELECT order_id, image_id, stop_id, signed_by, lat, lng, created \
                     FROM stop_signatures WHERE depot_id = ?1 AND route_id = ?2",
                )
                .st()?;
            let rows = q
                .query_map(crate::sql::params![scope.depot_id, route_id], |r| {
                    Ok((r.get(0)?, signature_row(r, 1)?))
                })
                .st()?;
            rows.collect::<Result<_, _>>().st()?
        };
        let mut images: HashMap<i64, ImageMeta> = self
            .images_where(
                "depot_id = ?1 AND route_id = ?2 AND kind = 'SIGNATURE'",
                &[&scope.depot_id, &route_id],
            )?
            .into_iter()
            .map(|m| (m.id, m))
            .collect();
        Ok(signatures
            .into_iter()
            .filter(|(order, _)| wanted.contains(order))
            .filter_map(|(order, s)| images.remove(&s.image_id).map(|m| (order, s, m)))
            .collect())
    }

    pub(super) fn route_tracking_tokens(
        &self,
        scope: DepotScope,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let mut out = Vec::new();
        for chunk in order_ids.chunks(IN_CHUNK) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let mut q = self
                .0
                .prepare(&format!(
                    "SELECT order_id, token FROM tracking_tokens \
                     WHERE depot_id = ? AND order_id IN ({marks})"
                ))
                .st()?;
            let args = std::iter::once(scope.depot_id).chain(chunk.iter().copied());
            let rows = q.query_map(params_from_iter(args), |r| r.columns()).st()?;
            for row in rows {
                out.push(row.st()?);
            }
        }
        Ok(out)
    }
}
