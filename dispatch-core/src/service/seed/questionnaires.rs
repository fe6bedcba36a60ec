//! The seed file's `questionnaires` key of a depot: driver questionnaire definitions,
//! identified by title within the depot (seeding again replaces type and questions; earlier
//! submissions keep the questions as they were answered).
//!
//! ```json
//! "questionnaires": [
//!   {"type": "VISIT", "title": "Delivery checks", "questions": [
//!     {"question": "Left in a safe place?", "type": "CHECKBOX", "required": true},
//!     {"question": "Where?", "type": "SELECT", "options": ["Porch", "Neighbour"]},
//!     {"question": "Customer signature", "type": "SIGNATURE"}
//!   ]}
//! ]
//! ```

use serde::Deserialize;
use serde_json::{json, Value};

use super::SeedError;
use crate::error::PathSegment;
use crate::model::organisation::DepotScope;
use crate::model::questionnaire::{AnswerType, Question, QuestionnaireDef, QuestionnaireType};
use crate::ports::store::StoreTx;
use crate::time::Timestamp;

/// A questionnaire of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedQuestionnaire {
    /// `VISIT` or `ROUTE_VEHICLE_CHECKIN`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Title (the identity within the depot).
    pub title: String,
    /// Questions in order; their ids are their 1-based positions.
    #[serde(default)]
    pub questions: Vec<SeedQuestion>,
}

/// A question of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedQuestion {
    /// The text.
    pub question: String,
    /// CHECKBOX, TEXT, SELECT, MULTI_SELECT, SIGNATURE or PHOTO.
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether every submission must answer it (default false).
    #[serde(default)]
    pub required: bool,
    /// Choices of SELECT and MULTI_SELECT questions.
    #[serde(default)]
    pub options: Vec<String>,
}

/// The definition, or why the seed entry is not one.
fn definition(q: &SeedQuestionnaire) -> Result<QuestionnaireDef, Vec<String>> {
    let mut problems = Vec::new();
    let kind = QuestionnaireType::parse(&q.kind);
    if kind.is_none() {
        problems.push("type: must be VISIT or ROUTE_VEHICLE_CHECKIN".to_owned());
    }
    let mut questions = Vec::new();
    for (i, question) in q.questions.iter().enumerate() {
        match AnswerType::parse(&question.kind) {
            Some(kind) => questions.push(Question {
                id: i as u32 + 1,
                kind,
                question: question.question.clone(),
                required: question.required,
                options: question.options.clone(),
            }),
            None => problems.push(format!(
                "questions[{i}].type: must be CHECKBOX, TEXT, SELECT, MULTI_SELECT, SIGNATURE or PHOTO"
            )),
        }
    }
    let def = QuestionnaireDef {
        kind: kind.unwrap_or(QuestionnaireType::Visit),
        title: q.title.clone(),
        questions,
    };
    if problems.is_empty() {
        if let Err(e) = def.validate() {
            for issue in e.0 {
                let path: Vec<String> = issue
                    .path
                    .iter()
                    .map(|p| match p {
                        PathSegment::Key(k) => format!(".{k}"),
                        PathSegment::Index(i) => format!("[{i}]"),
                    })
                    .collect();
                let path = path.concat();
                problems.push(format!(
                    "{}: {}",
                    path.trim_start_matches('.'),
                    issue.message
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(def)
    } else {
        Err(problems)
    }
}

/// Adds a line per problem of the depot at `at`'s questionnaires.
pub(super) fn validate(at: &str, questionnaires: &[SeedQuestionnaire], problems: &mut Vec<String>) {
    let mut titles = std::collections::HashSet::new();
    for (i, q) in questionnaires.iter().enumerate() {
        if let Err(found) = definition(q) {
            problems.extend(
                found
                    .into_iter()
                    .map(|p| format!("{at}.questionnaires[{i}].{p}")),
            );
        }
        if !titles.insert(q.title.as_str()) {
            problems.push(format!(
                "{at}.questionnaires[{i}].title: {:?} appears twice in the depot",
                q.title
            ));
        }
    }
}

/// Creates or updates the depot's questionnaires; the output lists them with their ids.
pub(super) fn apply(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    questionnaires: &[SeedQuestionnaire],
    now: Timestamp,
) -> Result<Vec<Value>, SeedError> {
    let mut out = Vec::new();
    for q in questionnaires {
        let def = definition(q).map_err(|p| SeedError::Invalid(p.join("\n")))?;
        let row = tx.upsert_questionnaire(scope, &def, now)?;
        out.push(json!({
            "id": row.id,
            "type": row.def.kind.as_str(),
            "title": row.def.title,
            "questions": row.def.questions.iter().map(|q| json!({"id": q.id, "question": q.question})).collect::<Vec<_>>(),
        }));
    }
    Ok(out)
}
