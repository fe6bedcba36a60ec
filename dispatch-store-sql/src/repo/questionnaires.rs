//! Questionnaire definitions, submissions and their answers (migration 0009). Answers keep a
//! copy of their question's type and text; image ids come from `pod_images`.

use crate::sql::{params, Connection, OptionalExtension, Row, Statement};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::pod::{StoredAnswer, Submission, SubmissionRef};
use dispatch_core::model::questionnaire::{
    AnswerType, CheckedAnswer, Question, Questionnaire, QuestionnaireDef, QuestionnaireType,
};
use dispatch_core::ports::store::{ProofPlace, QuestionnaireRepo, StoreError};
use dispatch_core::time::Timestamp;
use serde_json::{json, Value};

use super::order_rows::corrupt;
use super::{ts, Db, Sql};

fn questions_json(questions: &[Question]) -> String {
    Value::Array(
        questions
            .iter()
            .map(|q| {
                json!({"id": q.id, "type": q.kind.as_str(), "question": q.question,
                       "required": q.required, "options": q.options})
            })
            .collect(),
    )
    .to_string()
}

fn parse_questions(text: &str) -> Result<Vec<Question>, StoreError> {
    let items: Vec<Value> = serde_json::from_str(text).map_err(|_| corrupt("questions"))?;
    items
        .iter()
        .map(|q| {
            Some(Question {
                id: u32::try_from(q["id"].as_u64()?).ok()?,
                kind: AnswerType::parse(q["type"].as_str()?)?,
                question: q["question"].as_str()?.to_owned(),
                required: q["required"].as_bool()?,
                options: q["options"]
                    .as_array()?
                    .iter()
                    .map(|o| o.as_str().map(str::to_owned))
                    .collect::<Option<_>>()?,
            })
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| corrupt("questions"))
}

fn questionnaire(
    row: (i64, String, String, String, i64, i64),
) -> Result<Questionnaire, StoreError> {
    let (id, kind, title, questions, created, updated) = row;
    Ok(Questionnaire {
        id,
        def: QuestionnaireDef {
            kind: QuestionnaireType::parse(&kind).ok_or_else(|| corrupt("questionnaire type"))?,
            title,
            questions: parse_questions(&questions)?,
        },
        created: ts(created),
        updated: ts(updated),
    })
}

fn submission_ref(r: &Row<'_>) -> crate::sql::Result<(i64, String, String, Option<i64>)> {
    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
}

fn to_ref(row: (i64, String, String, Option<i64>)) -> Result<SubmissionRef, StoreError> {
    Ok(SubmissionRef {
        id: row.0,
        kind: QuestionnaireType::parse(&row.1).ok_or_else(|| corrupt("questionnaire type"))?,
        title: row.2,
        stop_id: row.3,
    })
}
impl<C: Connection> QuestionnaireRepo for Db<C> {
    fn upsert_questionnaire(
        &mut self,
        scope: DepotScope,
        def: &QuestionnaireDef,
        now: Timestamp,
    ) -> Result<Questionnaire, StoreError> {
        let questions = questions_json(&def.questions);
        self.0
            .prepare_cached(
                "INSERT INTO questionnaires (depot_id, type, title, questions, created, updated) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5) ON CONFLICT (depot_id, title) DO UPDATE SET \
                 type = excluded.type, questions = excluded.questions, updated = excluded.updated \
                 WHERE questionnaires.type <> excluded.type OR questionnaires.questions <> excluded.questions",
            )
            .st()?
            .execute(params![
                scope.depot_id,
                def.kind.as_str(),
                def.title,
                questions,
                now.millis()
            ])
            .st()?;
        self.list_questionnaires(scope)?
            .into_iter()
            .find(|q| q.def.title == def.title)
            .ok_or_else(|| corrupt("questionnaire"))
    }

    fn list_questionnaires(&mut self, scope: DepotScope) -> Result<Vec<Questionnaire>, StoreError> {
        let mut q = self
            .0
            .prepare_cached(
                "SELECT id, type, title, questions, created, updated FROM questionnaires \
                 WHERE depot_id = ?1 ORDER BY id",
            )
            .st()?;
        let rows = q.query_map(params![scope.depot_id], |r| r.columns()).st()?;
        rows.map(|r| questionnaire(r.st()?)).collect()
    }

    fn insert_submission(
        &mut self,
        scope: DepotScope,
        questionnaire: &Questionnaire,
        place: ProofPlace,
        answers: &[CheckedAnswer],
        now: Timestamp,
    ) -> Result<(i64, Vec<i64>), StoreError> {
        let id: i64 = self.0
            .prepare_cached(
                "INSERT INTO questionnaire_submissions (depot_id, questionnaire_id, type, title, \
                 route_id, stop_id, order_id, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING id",
            )
            .st()?
            .query_row(params![
                scope.depot_id,
                questionnaire.id,
                questionnaire.def.kind.as_str(),
                questionnaire.def.title,
                place.route_id,
                place.stop_id,
                place.order_id,
                now.millis()
            ], |r| r.get(0))
            .st()?;
        let mut insert = self
            .0
            .prepare_cached(
                "INSERT INTO questionnaire_answers (depot_id, submission_id, position, type, \
                 question, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
            )
            .st()?;
        let mut ids = Vec::with_capacity(answers.len());
        for (position, a) in answers.iter().enumerate() {
            let answer: i64 = insert
                .query_row(
                    params![
                        scope.depot_id,
                        id,
                        position as i64,
                        a.question.kind.as_str(),
                        a.question.question,
                        a.data
                    ],
                    |r| r.get(0),
                )
                .st()?;
            ids.push(answer);
        }
        Ok((id, ids))
    }

    fn get_submission(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<Submission>, StoreError> {
        let head = self
            .0
            .prepare_cached(
                "SELECT id, type, title, stop_id, questionnaire_id, route_id, created \
                 FROM questionnaire_submissions WHERE depot_id = ?1 AND id = ?2",
            )
            .st()?
            .query_row(params![scope.depot_id, id], |r| {
                Ok((
                    submission_ref(r)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, i64>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            })
            .optional()
            .st()?;
        let Some((head, questionnaire_id, route_id, created)) = head else {
            return Ok(None);
        };
        let mut q = self
            .0
            .prepare_cached(
                "SELECT id, type, question, data FROM questionnaire_answers \
                 WHERE submission_id = ?1 ORDER BY position",
            )
            .st()?;
        let rows = q
            .query_map(params![id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get(2)?,
                    r.get(3)?,
                ))
            })
            .st()?;
        let mut answers = Vec::new();
        for row in rows {
            let (answer_id, kind, question, data) = row.st()?;
            answers.push(StoredAnswer {
                id: answer_id,
                kind: AnswerType::parse(&kind).ok_or_else(|| corrupt("answer type"))?,
                question,
                data,
                image_ids: Vec::new(),
            });
        }
        let mut images = self
            .0
            .prepare_cached("SELECT id FROM pod_images WHERE answer_id = ?1 ORDER BY id")
            .st()?;
        for answer in &mut answers {
            let rows = images.query_map(params![answer.id], |r| r.get(0)).st()?;
            answer.image_ids = rows.collect::<Result<_, _>>().st()?;
        }
        Ok(Some(Submission {
            head: to_ref(head)?,
            questionnaire_id,
            route_id,
            answers,
            created: ts(created),
        }))
    }

    fn submissions_of_route(
        &mut self,
        scope: DepotScope,
        route_id: i64,
    ) -> Result<Vec<SubmissionRef>, StoreError> {
        let mut q = self
            .0
            .prepare_cached(
                "SELECT id, type, title, stop_id FROM questionnaire_submissions \
                 WHERE depot_id = ?1 AND route_id = ?2 ORDER BY id",
            )
            .st()?;
        let rows = q
            .query_map(params![scope.depot_id, route_id], submission_ref)
            .st()?;
        rows.map(|r| to_ref(r.st()?)).collect()
    }

    fn submissions_of_visit(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_id: i64,
    ) -> Result<Vec<SubmissionRef>, StoreError> {
        let mut q = self
            .0
            .prepare_cached(
                "SELECT id, type, title, stop_id FROM questionnaire_submissions \
                 WHERE depot_id = ?1 AND route_id = ?2 AND order_id = ?3 ORDER BY id",
            )
            .st()?;
        let rows = q
            .query_map(params![scope.depot_id, route_id, order_id], submission_ref)
            .st()?;
        rows.map(|r| to_ref(r.st()?)).collect()
    }

    fn submissions_of_visits(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        order_ids: &[i64],
    ) -> Result<Vec<(i64, SubmissionRef)>, StoreError> {
        let mut q = self
            .0
            .prepare_cached(
                "SELECT id, type, title, stop_id, order_id FROM questionnaire_submissions \
                 WHERE depot_id = ?1 AND route_id = ?2 AND order_id IS NOT NULL ORDER BY id",
            )
            .st()?;
        let rows = q
            .query_map(params![scope.depot_id, route_id], |r| {
                Ok((r.get::<_, i64>(4)?, submission_ref(r)?))
            })
            .st()?;
        let mut out = Vec::new();
        for row in rows {
            let (order, submission) = row.st()?;
            if order_ids.contains(&order) {
                out.push((order, to_ref(submission)?));
            }
        }
        Ok(out)
    }
}
