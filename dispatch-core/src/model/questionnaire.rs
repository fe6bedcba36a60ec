//! Driver questionnaires: the depot's definitions (from the seed file; here) and the rules an
//! answer set must meet before it is stored (`answers`). Answers keep a copy of their question's type and text,
//! so a later change of the definition never rewrites what a driver answered.

mod answers;

pub use answers::{check_answers, AnswerInput, AnswerValue, CheckedAnswer};

use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::time::Timestamp;

/// When a questionnaire is filled in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QuestionnaireType {
    /// At a stop (a visit).
    Visit,
    /// When the driver starts the route (vehicle check-in).
    RouteVehicleCheckin,
}

impl QuestionnaireType {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            QuestionnaireType::Visit => "VISIT",
            QuestionnaireType::RouteVehicleCheckin => "ROUTE_VEHICLE_CHECKIN",
        }
    }

    /// Parses the wire spelling (exact).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "VISIT" => Some(QuestionnaireType::Visit),
            "ROUTE_VEHICLE_CHECKIN" => Some(QuestionnaireType::RouteVehicleCheckin),
            _ => None,
        }
    }
}

/// The kind of a question and of its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AnswerType {
    /// Yes or no.
    Checkbox,
    /// Free text.
    Text,
    /// One of the question's options.
    Select,
    /// Any number of distinct options.
    MultiSelect,
    /// One signature image (and optionally who signed).
    Signature,
    /// One or more photos (and optionally a caption).
    Photo,
}

impl AnswerType {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerType::Checkbox => "CHECKBOX",
            AnswerType::Text => "TEXT",
            AnswerType::Select => "SELECT",
            AnswerType::MultiSelect => "MULTI_SELECT",
            AnswerType::Signature => "SIGNATURE",
            AnswerType::Photo => "PHOTO",
        }
    }

    /// Parses the wire spelling (exact).
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "CHECKBOX" => AnswerType::Checkbox,
            "TEXT" => AnswerType::Text,
            "SELECT" => AnswerType::Select,
            "MULTI_SELECT" => AnswerType::MultiSelect,
            "SIGNATURE" => AnswerType::Signature,
            "PHOTO" => AnswerType::Photo,
            _ => return None,
        })
    }

    /// Whether answers carry images.
    pub fn has_images(self) -> bool {
        matches!(self, AnswerType::Signature | AnswerType::Photo)
    }

    fn has_options(self) -> bool {
        matches!(self, AnswerType::Select | AnswerType::MultiSelect)
    }
}

/// Longest questionnaire title.
pub const MAX_TITLE_CHARS: usize = 255;
/// Most questions in one questionnaire.
pub const MAX_QUESTIONS: usize = 50;
/// Longest question text.
pub const MAX_QUESTION_CHARS: usize = 1000;
/// Most options of a SELECT or MULTI_SELECT question.
pub const MAX_OPTIONS: usize = 50;
/// Longest option and longest TEXT answer.
pub const MAX_TEXT_CHARS: usize = 10_000;
/// Most photos in one PHOTO answer.
pub const MAX_ANSWER_PHOTOS: usize = 5;

/// One question of a definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// Its id within the questionnaire: the 1-based position in the definition.
    pub id: u32,
    /// Answer type.
    pub kind: AnswerType,
    /// The question as the driver reads it.
    pub question: String,
    /// Whether a submission must answer it.
    pub required: bool,
    /// Choices of SELECT and MULTI_SELECT questions (empty otherwise).
    pub options: Vec<String>,
}

/// A questionnaire as the seed file defines it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionnaireDef {
    /// When it is filled in.
    pub kind: QuestionnaireType,
    /// Title (the identity within the depot).
    pub title: String,
    /// Questions in order; ids are their positions.
    pub questions: Vec<Question>,
}

/// A stored questionnaire of a depot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Questionnaire {
    /// Identifier.
    pub id: i64,
    /// The definition.
    pub def: QuestionnaireDef,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

fn issue(
    path: Vec<PathSegment>,
    code: IssueCode,
    expected: &str,
    message: String,
) -> ValidationIssue {
    ValidationIssue::new(code, path, expected, "", message)
}

impl QuestionnaireDef {
    /// Checks the definition: a title, 1 to 50 questions with text, options exactly on
    /// SELECT and MULTI_SELECT questions (1 to 50 distinct, non-empty), ids matching positions.
    pub fn validate(&self) -> Result<(), ValidationErrors> {
        let mut errors = ValidationErrors::default();
        let title = self.title.trim();
        if title.is_empty() || self.title.chars().count() > MAX_TITLE_CHARS {
            errors.push(issue(
                vec!["title".into()],
                IssueCode::InvalidString,
                "1 to 255 characters",
                "a questionnaire needs a title of 1 to 255 characters".into(),
            ));
        }
        if self.questions.is_empty() || self.questions.len() > MAX_QUESTIONS {
            errors.push(issue(
                vec!["questions".into()],
                IssueCode::TooSmall,
                "1 to 50 questions",
                format!("{} questions; 1 to 50 are allowed", self.questions.len()),
            ));
        }
        for (i, q) in self.questions.iter().enumerate() {
            let at = |key: &str| vec!["questions".into(), i.into(), key.into()];
            if q.id as usize != i + 1 {
                errors.push(issue(
                    at("id"),
                    IssueCode::Custom,
                    "the 1-based position",
                    format!("question {} has id {}", i + 1, q.id),
                ));
            }
            if q.question.trim().is_empty() || q.question.chars().count() > MAX_QUESTION_CHARS {
                errors.push(issue(
                    at("question"),
                    IssueCode::InvalidString,
                    "1 to 1000 characters",
                    "a question needs a text of 1 to 1000 characters".into(),
                ));
            }
            let options_ok = if q.kind.has_options() {
                let mut seen = std::collections::HashSet::new();
                !q.options.is_empty()
                    && q.options.len() <= MAX_OPTIONS
                    && q.options.iter().all(|o| {
                        !o.trim().is_empty()
                            && o.chars().count() <= MAX_TEXT_CHARS
                            && seen.insert(o.as_str())
                    })
            } else {
                q.options.is_empty()
            };
            if !options_ok {
                errors.push(issue(
                    at("options"),
                    IssueCode::Custom,
                    "1 to 50 distinct options on SELECT and MULTI_SELECT, none otherwise",
                    format!(
                        "question {} ({}): options are 1 to 50 distinct non-empty strings on SELECT and MULTI_SELECT questions and absent on the others",
                        i + 1,
                        q.kind.as_str()
                    ),
                ));
            }
        }
        errors.into_result()
    }
}

#[cfg(test)]
#[path = "questionnaire_tests.rs"]
mod tests;
