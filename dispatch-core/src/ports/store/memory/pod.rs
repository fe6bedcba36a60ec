//! The in-memory questionnaires, submissions, images, signatures and tracking tokens.

use std::sync::Arc;

use super::State;
use crate::model::organisation::DepotScope;
use crate::model::pod::{
    Compression, ImageMeta, StopSignature, StoredAnswer, Submission, SubmissionRef,
};
use crate::model::questionnaire::{CheckedAnswer, Questionnaire, QuestionnaireDef};
use crate::ports::store::{
    NewImage, PendingImage, PodRepo, ProofPlace, QuestionnaireRepo, StoreError, TrackingRepo,
};
use crate::time::Timestamp;

#[derive(Debug, Clone)]
struct ImageRow {
    scope: DepotScope,
    meta: ImageMeta,
    order_id: Option<i64>,
    lossless: bool,
    upload: Option<Arc<Vec<u8>>>,
    webp: Option<Arc<Vec<u8>>>,
}

#[derive(Debug, Clone)]
struct SubmissionRow {
    depot_id: i64,
    order_id: Option<i64>,
    submission: Submission,
}

/// Proof-of-delivery rows of every depot. Image bytes are shared, so copying the state for a
/// transaction stays cheap.
#[derive(Debug, Clone, Default)]
pub(super) struct Proofs {
    questionnaires: Vec<(i64, Questionnaire)>,
    submissions: Vec<SubmissionRow>,
    images: Vec<ImageRow>,
    signatures: Vec<(i64, i64, i64, StopSignature)>,
    tokens: Vec<(String, DepotScope, i64)>,
}

impl QuestionnaireRepo for State {
    fn upsert_questionnaire(
        &mut self,
        scope: DepotScope,
        def: &QuestionnaireDef,
        now: Timestamp,
    ) -> Result<Questionnaire, StoreError> {
        let existing = self
            .proofs
            .questionnaires
            .iter_mut()
            .find(|(d, q)| *d == scope.depot_id && q.def.title == def.title);
        if let Some((_, q)) = existing {
            if q.def != *def {
                q.def = def.clone();
                q.updated = now;
            }
            return Ok(q.clone());
        }
        let q = Questionnaire {
            id: self.id(),
            def: def.clone(),
            created: now,
            updated: now,
        };
        self.proofs.questionnaires.push((scope.depot_id, q.clone()));
        Ok(q)
    }

    fn list_questionnaires(&mut self, scope: DepotScope) -> Result<Vec<Questionnaire>, StoreError> {
        Ok(super::scoped(&self.proofs.questionnaires, scope.depot_id))
    }

    fn insert_submission(
        &mut self,
        scope: DepotScope,
        questionnaire: &Questionnaire,
        place: ProofPlace,
        answers: &[CheckedAnswer],
        now: Timestamp,
    ) -> Result<(i64, Vec<i64>), StoreError> {
        let id = self.id();
        let mut stored = Vec::new();
        for a in answers {
            stored.push(StoredAnswer {
                id: self.id(),
                kind: a.question.kind,
                question: a.question.question.clone(),
                data: a.data.clone(),
                image_ids: Vec::new(),
            });
        }
        let ids = stored.iter().map(|a| a.id).collect();
        self.proofs.submissions.push(SubmissionRow {
            depot_id: scope.depot_id,
            order_id: place.order_id,
            submission: Submission {
                head: SubmissionRef {
                    id,
                    kind: questionnaire.def.kind,
                    title: questionnaire.def.title.clone(),
                    stop_id: place.stop_id,
                },
                questionnaire_id: questionnaire.id,
                route_id: place.route_id,
                answers: stored,
                created: now,
            },
        });
        Ok((id, ids))
    }

    fn get_submission(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<Submission>, StoreError> {
        let Some(row) = self
            .proofs
            .submissions
            .iter()
            .find(|s| s.depot_id == scope.depot_id && s.submission.head.id == id)
        else {
            return Ok(None);
        };
        let mut submission = row.submission.clone();
        for answer in &mut submission.answers {
            answer.image_ids = self
                .proofs
                .images
                .iter()
                .filter(|i| i.scope == scope && i.meta.answer_id == Some(answer.id))
                .map(|i| i.meta.id)
                .collect();
        }
        Ok(Some(submission))
    }

    fn submissions_of_route(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<SubmissionRef>, StoreError> {
        Ok(self
            .proofs
            .submissions
            .iter()
            .filter(|s| s.depot_id == scope.depot_id && s.submission.route_id == route_id)
            .map(|s| s.submission.head.clone())
            .collect())
    }

    fn submissions_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Vec<SubmissionRef>, StoreError> {
        Ok(self
            .proofs
            .submissions
            .iter()
            .filter(|s| {
                s.depot_id == scope.depot_id
                    && s.submission.route_id == route_id
                    && s.order_id == Some(order_id)
            })
            .map(|s| s.submission.head.clone())
            .collect())
    }
}

impl PodRepo for State {
    fn insert_image(
        &mut self,
        scope: DepotScope,
        image: &NewImage<'_>,
        now: Timestamp,
    ) -> Result<ImageMeta, StoreError> {
        let meta = ImageMeta {
            id: self.id(),
            kind: image.kind,
            route_id: image.place.route_id,
            stop_id: image.place.stop_id,
            answer_id: image.answer_id,
            original: image.info,
            size: image.bytes.len() as u64,
            compression: Compression::Pending,
            created: now,
        };
        self.proofs.images.push(ImageRow {
            scope,
            meta: meta.clone(),
            order_id: image.place.order_id,
            lossless: image.lossless,
            upload: Some(Arc::new(image.bytes.to_vec())),
            webp: None,
        });
        Ok(meta)
    }

    fn get_image(&mut self, scope: DepotScope, id: i64) -> Result<Option<ImageMeta>, StoreError> {
        Ok(self
            .proofs
            .images
            .iter()
            .find(|i| i.scope == scope && i.meta.id == id)
            .map(|i| i.meta.clone()))
    }

    fn image_bytes(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<(String, Vec<u8>)>, StoreError> {
        let Some(row) = self
            .proofs
            .images
            .iter()
            .find(|i| i.scope == scope && i.meta.id == id)
        else {
            return Ok(None);
        };
        Ok(match (&row.meta.compression, &row.webp, &row.upload) {
            (Compression::Done, Some(webp), _) => Some(("image/webp".into(), webp.to_vec())),
            (Compression::Failed(_), _, Some(upload)) => {
                Some((row.meta.original.format.mime().into(), upload.to_vec()))
            }
            _ => None,
        })
    }

    fn photos_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Vec<ImageMeta>, StoreError> {
        Ok(self
            .proofs
            .images
            .iter()
            .filter(|i| {
                i.scope == scope
                    && i.meta.kind == crate::model::pod::ImageKind::Photo
                    && i.meta.route_id == route_id
                    && i.order_id == Some(order_id)
            })
            .map(|i| i.meta.clone())
            .collect())
    }

    fn pending_images(&mut self, limit: usize) -> Result<Vec<PendingImage>, StoreError> {
        Ok(self
            .proofs
            .images
            .iter()
            .filter(|i| i.meta.compression == Compression::Pending)
            .take(limit)
            .filter_map(|i| {
                Some(PendingImage {
                    scope: i.scope,
                    id: i.meta.id,
                    lossless: i.lossless,
                    bytes: i.upload.as_ref()?.to_vec(),
                })
            })
            .collect())
    }

    fn finish_image(
        &mut self,
        scope: DepotScope,
        id: i64,
        outcome: Result<&[u8], &str>,
        _now: Timestamp,
    ) -> Result<bool, StoreError> {
        let Some(row) = self
            .proofs
            .images
            .iter_mut()
            .find(|i| i.scope == scope && i.meta.id == id)
        else {
            return Ok(false);
        };
        if row.meta.compression != Compression::Pending {
            return Ok(false);
        }
        match outcome {
            Ok(webp) => {
                row.webp = Some(Arc::new(webp.to_vec()));
                row.upload = None;
                row.meta.compression = Compression::Done;
            }
            Err(reason) => row.meta.compression = Compression::Failed(reason.to_owned()),
        }
        Ok(true)
    }

    fn put_signature(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
        signature: &StopSignature,
    ) -> Result<(), StoreError> {
        let rows = &mut self.proofs.signatures;
        rows.retain(|(d, r, o, _)| !(*d == scope.depot_id && *r == route_id && *o == order_id));
        rows.push((scope.depot_id, route_id, order_id, signature.clone()));
        Ok(())
    }

    fn signature_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Option<StopSignature>, StoreError> {
        Ok(self
            .proofs
            .signatures
            .iter()
            .find(|(d, r, o, _)| *d == scope.depot_id && *r == route_id && *o == order_id)
            .map(|(_, _, _, s)| s.clone()))
    }
}

impl TrackingRepo for State {
    fn ensure_tracking_token(
        &mut self,
        scope: DepotScope,
        order_id: i64,
        fresh: &str,
        _now: Timestamp,
    ) -> Result<String, StoreError> {
        if let Some(token) = self.tracking_token(scope, order_id)? {
            return Ok(token);
        }
        self.proofs.tokens.push((fresh.to_owned(), scope, order_id));
        Ok(fresh.to_owned())
    }

    fn tracking_token(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Option<String>, StoreError> {
        Ok(self
            .proofs
            .tokens
            .iter()
            .find(|(_, s, o)| *s == scope && *o == order_id)
            .map(|(t, _, _)| t.clone()))
    }

    fn find_tracking_token(
        &mut self,
        token: &str,
    ) -> Result<Option<(DepotScope, i64)>, StoreError> {
        Ok(self
            .proofs
            .tokens
            .iter()
            .find(|(t, _, _)| t == token)
            .map(|(_, s, o)| (*s, *o)))
    }
}
