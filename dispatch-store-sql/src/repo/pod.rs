//! Proof-of-delivery images, signatures and tracking tokens (migration 0009). Image bytes live
//! in `pod_images`: the upload until compressed, then only the WebP copy. Questionnaires and
//! submissions: [`super::questionnaires`].

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::pod::{
    Compression, ImageFormat, ImageInfo, ImageKind, ImageMeta, StopSignature,
};
use dispatch_core::ports::store::{NewImage, PendingImage, PodRepo, StoreError, TrackingRepo};
use dispatch_core::time::Timestamp;

use super::order_rows::corrupt;
use super::{ts, Db, Sql};

mod route_reads;

const IMAGE_COLUMNS: &str = "id, kind, route_id, stop_id, answer_id, original_type, width, \
     height, size, webp IS NOT NULL, failure, created";

type ImageRow = (
    i64,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    String,
    u32,
    u32,
    i64,
    bool,
    Option<String>,
    i64,
);

fn image_row(r: &Row<'_>) -> crate::sql::Result<ImageRow> {
    r.columns()
}

fn image_meta(row: ImageRow) -> Result<ImageMeta, StoreError> {
    let (id, kind, route_id, stop_id, answer_id, mime, width, height, size, done, failure, created) =
        row;
    Ok(ImageMeta {
        id,
        kind: ImageKind::parse(&kind).ok_or_else(|| corrupt("image kind"))?,
        route_id,
        stop_id,
        answer_id,
        original: ImageInfo {
            format: ImageFormat::from_mime(&mime).ok_or_else(|| corrupt("image type"))?,
            width,
            height,
        },
        size: size as u64,
        compression: match (done, failure) {
            (true, _) => Compression::Done,
            (false, Some(reason)) => Compression::Failed(reason),
            (false, None) => Compression::Pending,
        },
        created: ts(created),
    })
}

impl<C: Connection> Db<C> {
    fn images_where(
        &self,
        filter: &str,
        args: &[&dyn crate::sql::ToSql],
    ) -> Result<Vec<ImageMeta>, StoreError> {
        let sql = format!("SELECT {IMAGE_COLUMNS} FROM pod_images WHERE {filter} ORDER BY id");
        let mut q = self.0.prepare_cached(&sql).st()?;
        let rows = q.query_map(args, image_row).st()?;
        rows.map(|r| image_meta(r.st()?)).collect()
    }
}

impl<C: Connection> PodRepo for Db<C> {
    fn insert_image(
        &mut self,
        scope: DepotScope,
        image: &NewImage<'_>,
        now: Timestamp,
    ) -> Result<ImageMeta, StoreError> {
        let id: i64 = self
            .0
            .prepare_cached(
                "INSERT INTO pod_images (depot_id, kind, route_id, stop_id, order_id, answer_id, \
                 lossless, original_type, width, height, size, upload, created) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) RETURNING id",
            )
            .st()?
            .query_row(
                params![
                    scope.depot_id,
                    image.kind.as_str(),
                    image.place.route_id,
                    image.place.stop_id,
                    image.place.order_id,
                    image.answer_id,
                    image.lossless,
                    image.info.format.mime(),
                    image.info.width,
                    image.info.height,
                    image.bytes.len() as i64,
                    image.bytes,
                    now.millis()
                ],
                |r| r.get(0),
            )
            .st()?;
        self.get_image(scope, id)?.ok_or_else(|| corrupt("image"))
    }

    fn get_image(&mut self, scope: DepotScope, id: i64) -> Result<Option<ImageMeta>, StoreError> {
        Ok(self
            .images_where("depot_id = ?1 AND id = ?2", &[&scope.depot_id, &id])?
            .pop())
    }

    fn image_bytes(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        let row = self
            .0
            .prepare_cached(
                "SELECT original_type, upload, webp, failure FROM pod_images \
                 WHERE depot_id = ?1 AND id = ?2",
            )
            .st()?
            .query_row(params![scope.depot_id, id], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<Vec<u8>>>(1)?,
                    r.get::<_, Option<Vec<u8>>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                ))
            })
            .optional()
            .st()?;
        Ok(match row {
            Some((_, _, Some(webp), _)) => Some(("image/webp".into(), webp)),
            Some((mime, Some(upload), None, Some(_))) => Some((mime, upload)),
            _ => None,
        })
    }

    fn photos_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Vec<ImageMeta>, StoreError> {
        self.images_where(
            "depot_id = ?1 AND route_id = ?2 AND order_id = ?3 AND kind = 'PHOTO'",
            &[&scope.depot_id, &route_id, &order_id],
        )
    }

    fn pending_images(&mut self, limit: usize) -> Result<Vec<PendingImage>, StoreError> {
        let mut q = self
            .0
            .prepare_cached(
                "SELECT i.id, i.depot_id, d.organisation_id, i.lossless, i.upload \
                 FROM pod_images i JOIN depots d ON d.id = i.depot_id \
                 WHERE i.webp IS NULL AND i.failure IS NULL ORDER BY i.id LIMIT ?1",
            )
            .st()?;
        let rows = q
            .query_map(params![limit as i64], |r| {
                Ok(PendingImage {
                    id: r.get(0)?,
                    scope: DepotScope {
                        depot_id: r.get(1)?,
                        organisation_id: r.get(2)?,
                    },
                    lossless: r.get(3)?,
                    bytes: r.get::<_, Option<Vec<u8>>>(4)?.unwrap_or_default(),
                })
            })
            .st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn finish_image(
        &mut self,
        scope: DepotScope,
        id: i64,
        outcome: Result<&[u8], &str>,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let changed = match outcome {
            Ok(webp) => self
                .0
                .prepare_cached(
                    "UPDATE pod_images SET webp = ?3, upload = NULL, compressed = ?4 \
                     WHERE depot_id = ?1 AND id = ?2 AND webp IS NULL AND failure IS NULL",
                )
                .st()?
                .execute(params![scope.depot_id, id, webp, now.millis()])
                .st()?,
            Err(reason) => self
                .0
                .prepare_cached(
                    "UPDATE pod_images SET failure = ?3, compressed = ?4 \
                     WHERE depot_id = ?1 AND id = ?2 AND webp IS NULL AND failure IS NULL",
                )
                .st()?
                .execute(params![scope.depot_id, id, reason, now.millis()])
                .st()?,
        };
        Ok(changed == 1)
    }

    fn put_signature(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
        s: &StopSignature,
    ) -> Result<(), StoreError> {
        self.0
            .prepare_cached(
                C::DIALECT.pick(
                    "INSERT OR REPLACE INTO stop_signatures (depot_id, route_id, order_id, stop_id, \
                 image_id, signed_by, lat, lng, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    "INSERT INTO stop_signatures (depot_id, route_id, order_id, stop_id, \
                 image_id, signed_by, lat, lng, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
                 ON CONFLICT (depot_id, route_id, order_id) DO UPDATE SET stop_id = excluded.stop_id, \
                 image_id = excluded.image_id, signed_by = excluded.signed_by, lat = excluded.lat, \
                 lng = excluded.lng, created = excluded.created",
                ),
            )
            .st()?
            .execute(params![
                scope.depot_id,
                route_id,
                order_id,
                s.stop_id,
                s.image_id,
                s.signed_by,
                s.lat,
                s.lng,
                s.created.millis()
            ])
            .st()?;
        Ok(())
    }

    fn signature_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Option<StopSignature>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT image_id, stop_id, signed_by, lat, lng, created FROM stop_signatures \
                 WHERE depot_id = ?1 AND route_id = ?2 AND order_id = ?3",
            )
            .st()?
            .query_row(params![scope.depot_id, route_id, order_id], |r| {
                signature_row(r, 0)
            })
            .optional()
            .st()
    }

    fn photos_of_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, ImageMeta)>, StoreError> {
        self.route_photos(scope, route_id, order_ids)
    }

    fn signatures_of_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, StopSignature, ImageMeta)>, StoreError> {
        self.route_signatures(scope, route_id, order_ids)
    }
}

/// A `stop_signatures` row's `image_id, stop_id, signed_by, lat, lng, created` from column `at`.
fn signature_row(r: &Row<'_>, at: usize) -> crate::sql::Result<StopSignature> {
    Ok(StopSignature {
        image_id: r.get(at)?,
        stop_id: r.get(at + 1)?,
        signed_by: r.get(at + 2)?,
        lat: r.get(at + 3)?,
        lng: r.get(at + 4)?,
        created: ts(r.get(at + 5)?),
    })
}

impl<C: Connection> TrackingRepo for Db<C> {
    fn ensure_tracking_token(
        &mut self,
        scope: DepotScope,
        order_id: i64,
        fresh: &str,
        now: Timestamp,
    ) -> Result<String, StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO tracking_tokens (token, depot_id, order_id, created) \
                 VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
            )
            .st()?
            .execute(params![fresh, scope.depot_id, order_id, now.millis()])
            .st()?;
        self.tracking_token(scope, order_id)?
            .ok_or_else(|| corrupt("tracking token"))
    }

    fn tracking_token(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Option<String>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT token FROM tracking_tokens WHERE depot_id = ?1 AND order_id = ?2",
            )
            .st()?
            .query_row(params![scope.depot_id, order_id], |r| r.get(0))
            .optional()
            .st()
    }

    fn tracking_tokens(
        &mut self,
        scope: DepotScope,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, String)>, StoreError> {
        self.route_tracking_tokens(scope, order_ids)
    }

    fn find_tracking_token(
        &mut self,
        token: &str,
    ) -> Result<Option<(DepotScope, i64)>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT t.depot_id, d.organisation_id, t.order_id FROM tracking_tokens t \
                 JOIN depots d ON d.id = t.depot_id WHERE t.token = ?1",
            )
            .st()?
            .query_row(params![token], |r| {
                Ok((
                    DepotScope {
                        depot_id: r.get(0)?,
                        organisation_id: r.get(1)?,
                    },
                    r.get(2)?,
                ))
            })
            .optional()
            .st()
    }
}
