//! Questionnaire submissions: the depot's definitions as a driver app lists them, and storing
//! a driver's answers with their images (checked against the definition in the write
//! transaction).

use std::collections::HashMap;

use super::{inspect_at, place_of};
use crate::error::ValidationErrors;
use crate::model::driver::Driver;
use crate::model::organisation::DepotScope;
use crate::model::pod::{ImageInfo, ImageKind, Submission};
use crate::model::questionnaire::{check_answers, AnswerInput, Questionnaire, QuestionnaireType};
use crate::ports::images::ImageCodec;
use crate::ports::store::{NewImage, ProofPlace, Store, StoreTx};
use crate::service::driver::{owned_route, owned_stop};
use crate::service::ServiceError;
use crate::time::Timestamp;

/// A questionnaire submission as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmissionInput {
    /// The questionnaire.
    pub questionnaire_id: i64,
    /// The route (ROUTE_VEHICLE_CHECKIN).
    pub route_id: Option<i64>,
    /// The stop (VISIT).
    pub stop_id: Option<i64>,
    /// The answers.
    pub answers: Vec<AnswerInput>,
}

/// The depot's questionnaires (what a driver app shows).
pub fn questionnaires(
    store: &dyn Store,
    scope: DepotScope,
) -> Result<Vec<Questionnaire>, ServiceError> {
    Ok(store.read(|tx| tx.list_questionnaires(scope))?)
}

fn bad(key: &str, expected: &str, received: &str, message: &str) -> ServiceError {
    ServiceError::invalid(vec![key.into()], expected, received, message)
}

/// An id as received: the number, or `undefined` when it was left out.
fn received_id(id: Option<i64>) -> String {
    id.map_or_else(|| "undefined".to_owned(), |id| id.to_string())
}

/// Stores a submission: a VISIT questionnaire names a stop of the driver's route, a
/// ROUTE_VEHICLE_CHECKIN one a route of the driver's vehicle; answers are checked against the
/// definition and every image decoded before anything is stored. Images are decoded before the
/// write transaction opens (the slow part, independent of the definition); the definition is
/// read inside it, so the answers are checked against the definition they are stored under.
pub fn submit(
    store: &dyn Store,
    codec: &dyn ImageCodec,
    driver: &Driver,
    input: &SubmissionInput,
    now: Timestamp,
) -> Result<Submission, ServiceError> {
    let mut image_errors = ValidationErrors::default();
    let mut infos: HashMap<(usize, usize), ImageInfo> = HashMap::new();
    for (i, answer) in input.answers.iter().enumerate() {
        for (j, bytes) in answer.images.iter().enumerate() {
            let path = vec!["answers".into(), i.into(), "images".into(), j.into()];
            if let Some(info) = inspect_at(codec, bytes, path, &mut image_errors) {
                infos.insert((i, j), info);
            }
        }
    }
    let scope = driver.scope;
    store.transaction_in(scope, |tx| {
        let questionnaire = checked_questionnaire(tx, scope, input)?;
        let checked = match check_answers(&questionnaire.def, &input.answers) {
            Ok(checked) => checked,
            Err(mut errors) => {
                errors.0.extend(image_errors.0.iter().cloned());
                return Err(errors.into());
            }
        };
        image_errors.clone().into_result()?;
        let place = submission_place(tx, driver, input)?;
        let (id, answer_ids) = tx.insert_submission(scope, &questionnaire, place, &checked, now)?;
        if questionnaire.def.kind == QuestionnaireType::RouteVehicleCheckin {
            crate::service::driver::progress::link_checkin(tx, driver, place.route_id, id)?;
        }
        for (a, answer_id) in checked.iter().zip(answer_ids) {
            let lossless = ImageKind::Answer.lossless(Some(a.question.kind));
            for (j, bytes) in input.answers[a.index].images.iter().enumerate() {
                let info = infos[&(a.index, j)];
                tx.insert_image(
                    scope,
                    &NewImage {
                        kind: ImageKind::Answer,
                        place,
                        answer_id: Some(answer_id),
                        lossless,
                        info,
                        bytes,
                    },
                    now,
                )?;
            }
        }
        tx.get_submission(scope, id)?
            .ok_or(ServiceError::NotFound("driver questionnaire submission"))
    })
}

/// The submission's questionnaire, when it is the depot's and the submission names what its
/// type is answered for (a stop for VISIT, a route and no stop for ROUTE_VEHICLE_CHECKIN).
fn checked_questionnaire(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    input: &SubmissionInput,
) -> Result<Questionnaire, ServiceError> {
    let questionnaire = tx
        .list_questionnaires(scope)?
        .into_iter()
        .find(|q| q.id == input.questionnaire_id)
        .ok_or_else(|| {
            bad(
                "questionnaire_id",
                "the id of a questionnaire of the depot",
                &input.questionnaire_id.to_string(),
                "no questionnaire with this id in the depot",
            )
        })?;
    match (questionnaire.def.kind, input.route_id, input.stop_id) {
        (QuestionnaireType::Visit, _, None) => Err(bad(
            "stop_id",
            "a stop id",
            "undefined",
            "a VISIT questionnaire is answered at a stop: stop_id is required",
        )),
        (QuestionnaireType::RouteVehicleCheckin, route, stop)
            if route.is_none() || stop.is_some() =>
        {
            let received = match stop {
                Some(stop) => format!("stop_id {stop}"),
                None => received_id(route),
            };
            Err(bad(
                "route_id",
                "a route id and no stop_id",
                &received,
                "a ROUTE_VEHICLE_CHECKIN questionnaire is answered for a route: route_id is \
             required and stop_id is not accepted",
            ))
        }
        _ => Ok(questionnaire),
    }
}

/// Where a submission is filed: the stop (of the driver's route) or the driver's route.
fn submission_place(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    input: &SubmissionInput,
) -> Result<ProofPlace, ServiceError> {
    match input.stop_id {
        Some(stop_id) => {
            let (route, stop) = owned_stop(tx, driver, stop_id)?;
            if input.route_id.is_some_and(|r| r != route.id) {
                return Err(bad(
                    "route_id",
                    "the stop's route",
                    &received_id(input.route_id),
                    "stop_id is not on route_id",
                ));
            }
            Ok(place_of(&stop))
        }
        None => {
            let route_id = input.route_id.ok_or(ServiceError::NotFound("route"))?;
            let route = owned_route(tx, driver, route_id)?;
            Ok(ProofPlace {
                route_id: route.id,
                stop_id: None,
                order_id: None,
            })
        }
    }
}
