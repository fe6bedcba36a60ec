//! Image compression across `kill -9`: uploads waiting for compression are rows, so a killed
//! server leaves them pending and the next start compresses them. The real binary on a real
//! file; the images are written as an upload would write them (through the store).

use crate::support;
use std::io::Cursor;
use std::time::{Duration, Instant};

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::pod::{ImageFormat, ImageInfo, ImageKind};
use dispatch_core::ports::store::{NewImage, ProofPlace, Store};
use dispatch_core::time::Timestamp;

use support::{Fixture, Server};

/// A noisy PNG, slow enough to encode that a burst of them is still compressing when killed.
fn png(side: u32, salt: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(side, side, |x, y| {
        let v = x
            .wrapping_mul(2_654_435_761)
            .wrapping_add(y.wrapping_mul(40_503))
            ^ salt;
        image::Rgb([v as u8, (v >> 8) as u8, (v >> 16) as u8])
    });
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

fn pending(db: &std::path::Path) -> usize {
    let store = support::test_db::open_store(db);
    store.read(|tx| tx.pending_images(1000)).unwrap().len()
}

#[test]
fn pending_compressions_survive_kill_9_and_finish_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pod.db");
    let fixture = Fixture::seed(&db);
    let scope = DepotScope {
        organisation_id: fixture.seeded["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: fixture.north()["id"].as_i64().unwrap(),
    };
    let images = 40;
    let ids: Vec<i64> = {
        let store = support::test_db::open_store(&db);
        let store: &dyn Store = &*store;
        (0..images)
            .map(|i| {
                let bytes = png(700, i);
                store
                    .transaction(|tx| {
                        tx.insert_image(
                            scope,
                            &NewImage {
                                kind: ImageKind::Photo,
                                place: ProofPlace {
                                    route_id: 1,
                                    stop_id: Some(1),
                                    order_id: Some(1),
                                },
                                answer_id: None,
                                lossless: false,
                                info: ImageInfo {
                                    format: ImageFormat::Png,
                                    width: 700,
                                    height: 700,
                                },
                                bytes: &bytes,
                            },
                            Timestamp::from_millis(0),
                        )
                    })
                    .unwrap()
                    .id
            })
            .collect()
    };
    assert_eq!(pending(&db), images as usize);

    let server = Server::start(&db);
    let first = format!("/v2/proof-of-delivery-photos/{}", ids[0]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while server.get(&first, &fixture.key).status == 202 {
        assert!(
            Instant::now() < deadline,
            "the first image never compressed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill_hard();
    let left = pending(&db);
    assert!(
        left > 0,
        "all {images} compressed before the kill: the test proves nothing"
    );

    let server = Server::start(&db);
    let deadline = Instant::now() + Duration::from_secs(120);
    for id in &ids {
        let path = format!("/v2/proof-of-delivery-photos/{id}");
        loop {
            let reply = server.get(&path, &fixture.key);
            if reply.status == 200 {
                assert_eq!(reply.header("content-type"), Some("image/webp"));
                assert_eq!(&reply.raw[8..12], b"WEBP");
                break;
            }
            assert_eq!(reply.status, 202, "{}", String::from_utf8_lossy(&reply.raw));
            assert_eq!(reply.header("retry-after"), Some("2"));
            assert!(
                Instant::now() < deadline,
                "image {id} never compressed after the restart"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    assert_eq!(pending(&db), 0);
    drop(server);
}
