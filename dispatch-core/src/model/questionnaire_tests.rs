use super::*;

fn q(id: u32, kind: AnswerType, required: bool, options: &[&str]) -> Question {
    Question {
        id,
        kind,
        question: format!("question {id}"),
        required,
        options: options.iter().map(|o| o.to_string()).collect(),
    }
}

fn def() -> QuestionnaireDef {
    QuestionnaireDef {
        kind: QuestionnaireType::Visit,
        title: "Delivery".into(),
        questions: vec![
            q(1, AnswerType::Checkbox, true, &[]),
            q(2, AnswerType::Text, false, &[]),
            q(3, AnswerType::Select, false, &["left", "right"]),
            q(4, AnswerType::MultiSelect, false, &["a", "b", "c"]),
            q(5, AnswerType::Signature, false, &[]),
            q(6, AnswerType::Photo, false, &[]),
        ],
    }
}

fn answer(question_id: u32, value: AnswerValue, images: usize) -> AnswerInput {
    AnswerInput {
        question_id,
        value,
        images: vec![vec![1]; images],
    }
}

#[test]
fn every_answer_type_is_accepted_in_its_own_shape() {
    let answers = vec![
        answer(1, AnswerValue::Bool(true), 0),
        answer(2, AnswerValue::Text("left at the door".into()), 0),
        answer(3, AnswerValue::Text("left".into()), 0),
        answer(4, AnswerValue::List(vec!["c".into(), "a".into()]), 0),
        answer(5, AnswerValue::Text("J. Smith".into()), 1),
        answer(6, AnswerValue::Absent, 3),
    ];
    let checked = check_answers(&def(), &answers).unwrap();
    let data: Vec<&str> = checked.iter().map(|c| c.data.as_str()).collect();
    assert_eq!(
        data,
        [
            "true",
            "left at the door",
            "left",
            "[\"c\",\"a\"]",
            "J. Smith",
            ""
        ]
    );
}

#[test]
fn wrong_shapes_unknown_and_repeated_questions_are_each_reported_at_their_path() {
    let answers = vec![
        answer(1, AnswerValue::Text("yes".into()), 0),
        answer(3, AnswerValue::Text("up".into()), 0),
        answer(4, AnswerValue::List(vec!["a".into(), "a".into()]), 0),
        answer(5, AnswerValue::Absent, 2),
        answer(6, AnswerValue::Absent, 0),
        answer(2, AnswerValue::Text("x".into()), 1),
        answer(9, AnswerValue::Absent, 0),
        answer(3, AnswerValue::Text("left".into()), 0),
    ];
    let e = check_answers(&def(), &answers).unwrap_err();
    assert_eq!(
        e.paths(),
        [
            "answers.0.value",
            "answers.1.value",
            "answers.2.value",
            "answers.3.images",
            "answers.4.images",
            "answers.5.images",
            "answers.6.question_id",
            "answers.7.question_id",
        ]
    );
}

#[test]
fn a_required_question_left_out_is_reported() {
    let e = check_answers(&def(), &[answer(2, AnswerValue::Text("x".into()), 0)]).unwrap_err();
    assert_eq!(e.paths(), ["answers"]);
    assert_eq!(e.0[0].code, IssueCode::Required);
}

#[test]
fn definitions_need_a_title_questions_and_options_only_where_they_belong() {
    assert!(def().validate().is_ok());
    let mut bad = def();
    bad.title = " ".into();
    bad.questions[0].options = vec!["x".into()];
    bad.questions[2].options.clear();
    bad.questions[3].options = vec!["a".into(), "a".into()];
    bad.questions[4].id = 9;
    let e = bad.validate().unwrap_err();
    assert_eq!(
        e.paths(),
        [
            "title",
            "questions.0.options",
            "questions.2.options",
            "questions.3.options",
            "questions.4.id"
        ]
    );
    let empty = QuestionnaireDef {
        questions: vec![],
        ..def()
    };
    assert_eq!(empty.validate().unwrap_err().paths(), ["questions"]);
}
