use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::json;

use crate::{delivery, Api, Reply};

const BOUNDARY: &str = "XyZ123boundary";
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n";

fn multipart(field: &str, name: &str, content: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
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
