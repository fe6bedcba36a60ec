use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

use super::{delivery, Api, Reply};

const BOUNDARY: &str = "XyZ123boundary";
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n";

fn multipart(field: &str, name: &str, content: &[u8]) -> Vec<u8> {
    multipart_named(field, name.as_bytes(), content)
}

/// A multipart body whose file name is `name` as raw bytes (not necessarily UTF-8).
fn multipart_named(field: &str, name: &[u8], content: &[u8]) -> Vec<u8> {
    let mut body =
        format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"")
            .into_bytes();
    body.extend_from_slice(name);
    body.extend_from_slice(b"\"\r\nContent-Type: application/octet-stream\r\n\r\n");
    body.extend_from_slice(content);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

async fn upload(api: &Api, order: &str, body: Vec<u8>) -> Reply {
    let req = Request::post(format!("/v2/orders/{order}/attachments"))
        .header("x-access-key", &api.key)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .header("content-length", body.len())
        .body(Body::from(body))
        .unwrap();
    api.send(req).await
}

#[tokio::test]
async fn an_attachment_is_stored_and_listed_on_the_order() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("A")])).await[0];
    let r = upload(
        &api,
        &id.to_string(),
        multipart("attachment", "proof.pdf", PDF),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["order_id"], id.to_string());
    assert_eq!(
        (r.body["mime"].as_str(), r.body["ext"].as_str()),
        (Some("application/pdf"), Some("pdf"))
    );
    assert_eq!(r.body["size"], PDF.len());
    let order = api.get(&format!("/v2/orders/{id}")).await.body["order"].clone();
    assert_eq!(
        order["attachments"],
        json!([{"id": r.body["id"], "name": "proof.pdf"}])
    );
}

#[tokio::test]
async fn attachment_types_are_checked_by_content_not_by_name() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("A")])).await[0].to_string();
    let r = upload(
        &api,
        &id,
        multipart("attachment", "fake.pdf", b"MZ this is not a pdf"),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let png = [0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0];
    let r = upload(&api, &id, multipart("attachment", "photo.bin", &png)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["ext"], "png");
}

#[tokio::test]
async fn a_jpeg_named_photo_jpeg_reports_the_extension_of_its_name() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("A")])).await[0].to_string();
    let jpeg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, b'J', b'F', b'I', b'F', 0];
    let r = upload(&api, &id, multipart("attachment", "photo.jpeg", &jpeg)).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        (r.body["ext"].as_str(), r.body["mime"].as_str()),
        (Some("jpeg"), Some("image/jpeg"))
    );
    let r = upload(&api, &id, multipart("attachment", "photo.JPG", &jpeg)).await;
    assert_eq!(r.body["ext"], "jpg");
}

#[tokio::test]
async fn an_order_takes_at_most_two_attachments() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("A")])).await[0].to_string();
    for _ in 0..2 {
        assert_eq!(
            upload(&api, &id, multipart("attachment", "a.pdf", PDF))
                .await
                .status,
            StatusCode::OK
        );
    }
    let r = upload(&api, &id, multipart("attachment", "a.pdf", PDF)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn an_attachment_over_10_mb_is_refused() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("A")])).await[0].to_string();
    let mut big = PDF.to_vec();
    big.resize(10 * 1024 * 1024 + 1, b' ');
    let r = upload(&api, &id, multipart("attachment", "big.pdf", &big)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.name(), "INVALID_INPUT");
    let mut just = PDF.to_vec();
    just.resize(10 * 1024 * 1024, b' ');
    assert_eq!(
        upload(&api, &id, multipart("attachment", "ok.pdf", &just))
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_declared_length_over_the_limit_is_refused_before_reading() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("A")])).await[0].to_string();
    let req = Request::post(format!("/v2/orders/{id}/attachments"))
        .header("x-access-key", &api.key)
        .header(
            "content-type",
            format!("multipart/form-data; boundary={BOUNDARY}"),
        )
        .header("content-length", 50 * 1024 * 1024)
        .body(Body::from(multipart("attachment", "a.pdf", PDF)))
        .unwrap();
    assert_eq!(api.send(req).await.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn attachments_need_the_attachment_field_and_a_known_order() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("A")])).await[0].to_string();
    assert_eq!(
        upload(&api, &id, multipart("file", "a.pdf", PDF))
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        upload(&api, "99999", multipart("attachment", "a.pdf", PDF))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    let json_body = api
        .post(
            &format!("/v2/orders/{id}/attachments"),
            json!({"attachment": "x"}),
        )
        .await;
    assert_eq!(json_body.status, StatusCode::BAD_REQUEST);
}

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0];

/// `(name, file_name)` of every attachment row of the database, as stored.
fn stored_names(api: &Api) -> Vec<(String, String)> {
    super::test_sql::text_rows(
        &api.db,
        "SELECT name, file_name FROM order_attachments ORDER BY id",
    )
    .into_iter()
    .map(|row| (row[0].clone(), row[1].clone()))
    .collect()
}

#[tokio::test]
async fn uploaded_names_are_kept_for_display_and_the_file_is_stored_under_a_sanitised_name() {
    let api = Api::start();
    let long = format!("{}.png", "n".repeat(5000));
    let cases: [(&[u8], &str, &str); 5] = [
        (b"../../x.png", "../../x.png", "x.png"),
        (
            b"<img onerror=alert(1)>.png",
            "<img onerror=alert(1)>.png",
            "img onerror_alert(1).png",
        ),
        (b"..\\..\\boot.ini", "..\\..\\boot.ini", "boot_ini.png"),
        (
            long.as_bytes(),
            &long[..255],
            &format!("{}.png", "n".repeat(100)),
        ),
        // Not UTF-8: the multipart reader sees no usable name.
        (b"\xff\xfe../x.png", "attachment", "attachment.png"),
    ];
    let mut expected = Vec::new();
    for (i, (uploaded, display, safe)) in cases.into_iter().enumerate() {
        let id = api.post_orders(json!([delivery(&format!("N{i}"))])).await[0].to_string();
        let r = upload(&api, &id, multipart_named("attachment", uploaded, PNG)).await;
        assert_eq!(r.status, StatusCode::OK, "{display}: {}", r.body);
        assert_eq!(r.body["name"], display);
        let order = api.get(&format!("/v2/orders/{id}")).await.body["order"].clone();
        assert_eq!(order["attachments"][0]["name"], display);
        expected.push((display.to_owned(), safe.to_owned()));
    }
    assert_eq!(stored_names(&api), expected);
}

#[tokio::test]
async fn control_characters_in_a_file_name_never_reach_the_stored_name() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("A")])).await[0].to_string();
    for uploaded in [&b"a\0b.png"[..], b"a\x1b[31mb.png", b"a\rb.png"] {
        let r = upload(&api, &id, multipart_named("attachment", uploaded, PNG)).await;
        if r.status != StatusCode::OK {
            assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
            assert_eq!(r.body["name"], "INVALID_INPUT");
        }
    }
    for (_, safe) in stored_names(&api) {
        assert!(!safe.chars().any(char::is_control), "{safe:?}");
    }
}

#[tokio::test]
async fn upload_refusals_say_what_was_received() {
    let api = Api::start();
    let id = api.post_orders(json!([delivery("R")])).await[0].to_string();
    let received = |r: &Reply| r.body["details"]["validationErrors"][0]["received"].clone();
    let wrong_field = upload(&api, &id, multipart("file", "a.pdf", PDF)).await;
    assert_eq!(
        received(&wrong_field),
        "a field `file`",
        "{:#}",
        wrong_field.body
    );
    let mut two = multipart("attachment", "a.pdf", PDF);
    two.truncate(two.len() - format!("--{BOUNDARY}--\r\n").len());
    two.extend(multipart("attachment", "b.pdf", PDF));
    let second = upload(&api, &id, two).await;
    assert_eq!(
        received(&second),
        "a second `attachment` field",
        "{:#}",
        second.body
    );
    let none = upload(&api, &id, format!("--{BOUNDARY}--\r\n").into_bytes()).await;
    assert_eq!(received(&none), "undefined", "{:#}", none.body);
    let json_body = api
        .post(
            &format!("/v2/orders/{id}/attachments"),
            json!({"attachment": "x"}),
        )
        .await;
    assert_eq!(
        received(&json_body),
        "application/json",
        "{:#}",
        json_body.body
    );
}
