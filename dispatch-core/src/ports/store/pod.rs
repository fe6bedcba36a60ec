//! Proof of delivery in the store: questionnaire definitions and submissions, images (kept as
//! uploaded until the background compressor stores their WebP copy), stop signatures, and the
//! customer tracking tokens of orders.
//!
//! Proof of a stop is filed under its route and its (first) order, not its stop id: route edits
//! rebuild stops under new ids, and the proof must stay with the visit.

use super::StoreError;
use crate::model::organisation::DepotScope;
use crate::model::pod::{
    ImageInfo, ImageKind, ImageMeta, StopSignature, Submission, SubmissionRef,
};
use crate::model::questionnaire::{CheckedAnswer, Questionnaire, QuestionnaireDef};
use crate::time::Timestamp;

/// Where a proof was taken: the route, the stop and the stop's first order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofPlace {
    /// The route.
    pub route_id: i64,
    /// The stop at upload time (`None`: route-level, e.g. a vehicle check-in).
    pub stop_id: Option<i64>,
    /// The stop's first order (`None` with `stop_id`).
    pub order_id: Option<i64>,
}

/// An image to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewImage<'a> {
    /// What it belongs to.
    pub kind: ImageKind,
    /// Where it was taken.
    pub place: ProofPlace,
    /// The answer it belongs to (answer images).
    pub answer_id: Option<i64>,
    /// Whether its WebP copy is lossless (signatures).
    pub lossless: bool,
    /// What decoding found.
    pub info: ImageInfo,
    /// The upload.
    pub bytes: &'a [u8],
}

/// An image waiting for compression, with its upload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingImage {
    /// The depot.
    pub scope: DepotScope,
    /// The image.
    pub id: i64,
    /// Whether its WebP copy is lossless.
    pub lossless: bool,
    /// The upload.
    pub bytes: Vec<u8>,
}

/// Questionnaire definitions and submissions.
pub trait QuestionnaireRepo {
    /// Creates the depot's questionnaire titled `def.title` or replaces its type and questions.
    fn upsert_questionnaire(
        &mut self,
        scope: DepotScope,
        def: &QuestionnaireDef,
        now: Timestamp,
    ) -> Result<Questionnaire, StoreError>;
    /// The depot's questionnaires, by id.
    fn list_questionnaires(&mut self, scope: DepotScope) -> Result<Vec<Questionnaire>, StoreError>;
    /// Stores a submission of `questionnaire` at `place` with its checked answers (images are
    /// added afterwards with [`PodRepo::insert_image`]) and returns the answer ids in order.
    fn insert_submission(
        &mut self,
        scope: DepotScope,
        questionnaire: &Questionnaire,
        place: ProofPlace,
        answers: &[CheckedAnswer],
        now: Timestamp,
    ) -> Result<(i64, Vec<i64>), StoreError>;
    /// One submission of the depot with its answers and their image ids.
    fn get_submission(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<Submission>, StoreError>;
    /// The submissions made on a route, by id (route-level and at stops).
    fn submissions_of_route(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<SubmissionRef>, StoreError>;
    /// The submissions filed under a route and order (VISIT submissions of that stop), by id.
    fn submissions_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Vec<SubmissionRef>, StoreError>;
    /// The VISIT submissions filed under a route for each of `order_ids`, as (order, submission)
    /// by id: what the stops of a whole route show, in one read where the store can. The
    /// default asks [`QuestionnaireRepo::submissions_of_visit`] per order.
    fn submissions_of_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, SubmissionRef)>, StoreError> {
        let mut out = Vec::new();
        for &order in order_ids {
            let found = self.submissions_of_visit(scope, route_id, order)?;
            out.extend(found.into_iter().map(|s| (order, s)));
        }
        Ok(out)
    }
}

/// Images and signatures.
pub trait PodRepo {
    /// Stores an accepted image, pending compression.
    fn insert_image(
        &mut self,
        scope: DepotScope,
        image: &NewImage<'_>,
        now: Timestamp,
    ) -> Result<ImageMeta, StoreError>;
    /// One image's record.
    fn get_image(&mut self, scope: DepotScope, id: i64) -> Result<Option<ImageMeta>, StoreError>;
    /// What a read serves: the WebP copy, or the upload when compression failed; `None` while
    /// pending or unknown.
    fn image_bytes(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<(String, Vec<u8>)>, StoreError>;
    /// The photos filed under a route and order, by id.
    fn photos_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Vec<ImageMeta>, StoreError>;
    /// Up to `limit` images of any depot waiting for compression, oldest first, with their
    /// uploads.
    fn pending_images(&mut self, limit: usize) -> Result<Vec<PendingImage>, StoreError>;
    /// Finishes a pending image: stores its WebP copy (and drops the upload), or records why
    /// it could not be compressed (keeping the upload). False when it was not pending.
    fn finish_image(
        &mut self,
        scope: DepotScope,
        id: i64,
        outcome: Result<&[u8], &str>,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Files a signature under a route and order, replacing an earlier one.
    fn put_signature(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
        signature: &StopSignature,
    ) -> Result<(), StoreError>;
    /// The signature filed under a route and order.
    fn signature_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Option<StopSignature>, StoreError>;
    /// The photos filed under a route for each of `order_ids`, as (order, photo) by id, in one
    /// read where the store can. The default asks [`PodRepo::photos_of_visit`] per order.
    fn photos_of_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, ImageMeta)>, StoreError> {
        let mut out = Vec::new();
        for &order in order_ids {
            let found = self.photos_of_visit(scope, route_id, order)?;
            out.extend(found.into_iter().map(|m| (order, m)));
        }
        Ok(out)
    }
    /// The signature filed under a route for each of `order_ids` that has one, with its image
    /// record, in one read where the store can. The default asks
    /// [`PodRepo::signature_of_visit`] and [`PodRepo::get_image`] per order.
    fn signatures_of_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, StopSignature, ImageMeta)>, StoreError> {
        let mut out = Vec::new();
        for &order in order_ids {
            if let Some(signature) = self.signature_of_visit(scope, route_id, order)? {
                if let Some(meta) = self.get_image(scope, signature.image_id)? {
                    out.push((order, signature, meta));
                }
            }
        }
        Ok(out)
    }
}

/// Customer tracking tokens: one per order, made when the order is first dispatched.
pub trait TrackingRepo {
    /// The order's token; stores `fresh` first when it has none.
    fn ensure_tracking_token(
        &mut self,
        scope: DepotScope,
        order_id: i64,
        fresh: &str,
        now: Timestamp,
    ) -> Result<String, StoreError>;
    /// The order's token, if it was ever dispatched.
    fn tracking_token(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Option<String>, StoreError>;
    /// The tokens of those of `order_ids` that have one, as (order, token), in one read where
    /// the store can. The default asks [`TrackingRepo::tracking_token`] per order.
    fn tracking_tokens(
        &mut self,
        scope: DepotScope,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let mut out = Vec::new();
        for &order in order_ids {
            out.extend(self.tracking_token(scope, order)?.map(|t| (order, t)));
        }
        Ok(out)
    }
    /// The depot and order of a token (the one lookup that is not depot-scoped: the token is
    /// the credential).
    fn find_tracking_token(&mut self, token: &str)
        -> Result<Option<(DepotScope, i64)>, StoreError>;
}
