//! What stop reads show of proof of delivery: the latest signature, the photos, the VISIT
//! submissions and the tracking token of each stop. A route's proof is read once for all its
//! stops ([`RouteProof`]), one store read per kind, not per stop.

use std::collections::HashMap;

use crate::model::organisation::DepotScope;
use crate::model::pod::{ImageMeta, StopProof, StopSignature, SubmissionRef};
use crate::model::stop::Stop;
use crate::ports::store::{StoreError, StoreTx};

/// The proof of delivery of a route's visits, by order (proof is filed under the route and
/// the stop's first order, so it stays with the visit when route edits rebuild stops).
#[derive(Debug, Clone, Default)]
pub struct RouteProof {
    signatures: HashMap<i64, (StopSignature, ImageMeta)>,
    photos: HashMap<i64, Vec<ImageMeta>>,
    submissions: HashMap<i64, Vec<SubmissionRef>>,
    tokens: HashMap<i64, String>,
}

impl RouteProof {
    /// Reads the proof of `stops` (stops of route `route_id`).
    pub fn read(
        tx: &mut dyn StoreTx,
        scope: DepotScope,
        route_id: i64,
        stops: &[Stop],
    ) -> Result<RouteProof, StoreError> {
        let firsts: Vec<i64> = stops
            .iter()
            .filter_map(|s| s.visit.order_ids.first().copied())
            .collect();
        let mut proof = RouteProof::default();
        if firsts.is_empty() {
            return Ok(proof);
        }
        for (order, signature, meta) in tx.signatures_of_visits(scope, route_id, &firsts)? {
            proof.signatures.insert(order, (signature, meta));
        }
        for (order, meta) in tx.photos_of_visits(scope, route_id, &firsts)? {
            proof.photos.entry(order).or_default().push(meta);
        }
        for (order, submission) in tx.submissions_of_visits(scope, route_id, &firsts)? {
            proof.submissions.entry(order).or_default().push(submission);
        }
        proof.tokens = tx.tracking_tokens(scope, &firsts)?.into_iter().collect();
        Ok(proof)
    }

    /// What a read of `stop` shows.
    pub fn of(&self, stop: &Stop) -> StopProof {
        let Some(order) = stop.visit.order_ids.first() else {
            return StopProof::default();
        };
        StopProof {
            signature: self.signatures.get(order).cloned(),
            photos: self.photos.get(order).cloned().unwrap_or_default(),
            submissions: self.submissions.get(order).cloned().unwrap_or_default(),
            tracking_token: self.tokens.get(order).cloned(),
        }
    }
}

/// What a stop read shows of the stop's proof of delivery.
pub fn stop_proof(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    stop: &Stop,
) -> Result<StopProof, StoreError> {
    let proof = RouteProof::read(tx, scope, stop.route_id, std::slice::from_ref(stop))?;
    Ok(proof.of(stop))
}
