//! The rules a driver's answers meet before they are stored: every question known and answered
//! at most once, every required one answered, each value of its question's type.

use super::{AnswerType, Question, QuestionnaireDef, MAX_ANSWER_PHOTOS, MAX_TEXT_CHARS};
use crate::error::{IssueCode, ValidationErrors, ValidationIssue};

/// The value part of an answer as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerValue {
    /// No value (image answers may omit it).
    Absent,
    /// `true` / `false`.
    Bool(bool),
    /// A string.
    Text(String),
    /// A list of strings.
    List(Vec<String>),
}

/// One answer as sent by the driver; images are the raw uploaded bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerInput {
    /// The question answered.
    pub question_id: u32,
    /// The value.
    pub value: AnswerValue,
    /// Images of SIGNATURE (exactly one) and PHOTO (1 to 5) answers.
    pub images: Vec<Vec<u8>>,
}

/// An answer that met its question's rules, ready to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedAnswer {
    /// The question (a copy: type and text as they were when answered).
    pub question: Question,
    /// The answer as a string: `true`/`false`, the text, the option, a JSON array of the
    /// chosen options, the signer's name or the photo caption (possibly empty).
    pub data: String,
    /// Position of the answer in the request (to place image errors).
    pub index: usize,
}

fn answer_issue(i: usize, refusal: Refusal) -> ValidationIssue {
    let Refusal {
        key,
        expected,
        received,
        message,
    } = refusal;
    ValidationIssue::new(
        IssueCode::Custom,
        vec!["answers".into(), i.into(), key.into()],
        expected,
        received,
        message,
    )
}

/// What was received as a value: JSON's spelling of it, `undefined` when it was left out.
fn received_value(value: &AnswerValue) -> String {
    match value {
        AnswerValue::Absent => "undefined".to_owned(),
        AnswerValue::Bool(b) => b.to_string(),
        AnswerValue::Text(t) => t.clone(),
        AnswerValue::List(items) => serde_json::to_string(items).unwrap_or_default(),
    }
}

fn received_images(a: &AnswerInput) -> String {
    format!("{} images", a.images.len())
}

/// Checks `answers` against the questionnaire: every question known and answered at most
/// once, every required one answered, each value of its question's type (options from the
/// list, image counts). Image contents are checked separately (they need the codec).
pub fn check_answers(
    def: &QuestionnaireDef,
    answers: &[AnswerInput],
) -> Result<Vec<CheckedAnswer>, ValidationErrors> {
    let mut errors = ValidationErrors::default();
    let mut out = Vec::new();
    let mut answered = std::collections::HashSet::new();
    for (i, a) in answers.iter().enumerate() {
        let Some(q) = def.questions.iter().find(|q| q.id == a.question_id) else {
            errors.push(answer_issue(
                i,
                Refusal {
                    key: "question_id",
                    expected: "the id of a question of this questionnaire",
                    received: a.question_id.to_string(),
                    message: format!("question {} is not in this questionnaire", a.question_id),
                },
            ));
            continue;
        };
        if !answered.insert(q.id) {
            errors.push(answer_issue(
                i,
                Refusal {
                    key: "question_id",
                    expected: "one answer per question",
                    received: q.id.to_string(),
                    message: format!("question {} is answered twice", q.id),
                },
            ));
            continue;
        }
        match check_one(q, a) {
            Ok(data) => out.push(CheckedAnswer {
                question: q.clone(),
                data,
                index: i,
            }),
            Err(refusal) => errors.push(answer_issue(i, refusal)),
        }
    }
    for q in def.questions.iter().filter(|q| q.required) {
        if !answered.contains(&q.id) {
            errors.push(ValidationIssue::new(
                IssueCode::Required,
                vec!["answers".into()],
                format!("an answer to question {}", q.id),
                format!("no answer to question {}", q.id),
                format!("question {} ({:?}) is required", q.id, q.question),
            ));
        }
    }
    errors.into_result().map(|()| out)
}

/// Why one answer is refused: the property at fault, what it should be, what it was.
struct Refusal {
    key: &'static str,
    expected: &'static str,
    received: String,
    message: String,
}

impl Refusal {
    /// A refused `value`.
    fn value(a: &AnswerInput, expected: &'static str, message: String) -> Refusal {
        Refusal {
            key: "value",
            expected,
            received: received_value(&a.value),
            message,
        }
    }

    /// A refused number of `images`.
    fn images(a: &AnswerInput, expected: &'static str, message: String) -> Refusal {
        Refusal {
            key: "images",
            expected,
            received: received_images(a),
            message,
        }
    }
}

fn check_one(q: &Question, a: &AnswerInput) -> Result<String, Refusal> {
    let kind = q.kind.as_str();
    if !q.kind.has_images() && !a.images.is_empty() {
        return Err(Refusal::images(
            a,
            "no images",
            format!("a {kind} answer carries no images"),
        ));
    }
    let text_ok = |s: &str| s.chars().count() <= MAX_TEXT_CHARS;
    match (q.kind, &a.value) {
        (AnswerType::Checkbox, AnswerValue::Bool(b)) => Ok(b.to_string()),
        (AnswerType::Checkbox, _) => Err(Refusal::value(
            a,
            "boolean",
            "a CHECKBOX answer is true or false".into(),
        )),
        (AnswerType::Text, AnswerValue::Text(t)) if text_ok(t) => Ok(t.clone()),
        (AnswerType::Text, _) => Err(Refusal::value(
            a,
            "string of at most 10000 characters",
            "a TEXT answer is a string of at most 10000 characters".into(),
        )),
        (AnswerType::Select, AnswerValue::Text(t)) if q.options.contains(t) => Ok(t.clone()),
        (AnswerType::Select, _) => Err(Refusal::value(
            a,
            "one of the question's options",
            format!("a SELECT answer is one of {:?}", q.options),
        )),
        (AnswerType::MultiSelect, AnswerValue::List(chosen)) => {
            let mut seen = std::collections::HashSet::new();
            if chosen
                .iter()
                .all(|c| q.options.contains(c) && seen.insert(c))
            {
                Ok(serde_json::to_string(chosen).unwrap_or_default())
            } else {
                Err(Refusal::value(
                    a,
                    "distinct options of the question",
                    format!(
                        "a MULTI_SELECT answer is a list of distinct options of {:?}",
                        q.options
                    ),
                ))
            }
        }
        (AnswerType::MultiSelect, _) => Err(Refusal::value(
            a,
            "array of options",
            "a MULTI_SELECT answer is an array of the question's options".into(),
        )),
        (AnswerType::Signature | AnswerType::Photo, value) => {
            let data = match value {
                AnswerValue::Absent => String::new(),
                AnswerValue::Text(t) if text_ok(t) => t.clone(),
                _ => {
                    return Err(Refusal::value(
                        a,
                        "string or absent",
                        format!("the value of a {kind} answer is an optional string (who signed, or a caption)"),
                    ))
                }
            };
            let (min, max) = match q.kind {
                AnswerType::Signature => (1, 1),
                _ => (1, MAX_ANSWER_PHOTOS),
            };
            if a.images.len() < min || a.images.len() > max {
                return Err(Refusal::images(
                    a,
                    if max == 1 {
                        "exactly one image"
                    } else {
                        "1 to 5 images"
                    },
                    format!(
                        "a {kind} answer needs {} image(s), got {}",
                        if max == 1 {
                            "exactly 1".to_owned()
                        } else {
                            format!("1 to {max}")
                        },
                        a.images.len()
                    ),
                ));
            }
            Ok(data)
        }
    }
}
