//! `/docs`: Swagger UI over `/v2/openapi.json`, its assets embedded in the binary (vendored from
//! the npm package `swagger-ui-dist`, see `dispatch-http/assets/swagger-ui/README.md`), so the
//! page works offline and loads nothing from elsewhere; and `/docs/features/{token}`, the page
//! of each feature token (the default target of its deprecation `Link`).

use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use crate::middleware::features::Feature;
use crate::AppState;

/// Each asset of the page: its path under `/docs/`, content type and bytes.
pub const ASSETS: &[(&str, &str, &[u8])] = &[
    (
        "swagger-ui-bundle.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../assets/swagger-ui/swagger-ui-bundle.js"),
    ),
    (
        "swagger-ui.css",
        "text/css; charset=utf-8",
        include_bytes!("../../assets/swagger-ui/swagger-ui.css"),
    ),
    (
        "init.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../assets/swagger-ui/init.js"),
    ),
    (
        "favicon-32x32.png",
        "image/png",
        include_bytes!("../../assets/swagger-ui/favicon-32x32.png"),
    ),
];

const PAGE: &str = include_str!("../../assets/swagger-ui/index.html");

/// Only this origin: the browser itself refuses anything the page might try to load from
/// elsewhere. Swagger UI sets inline styles and draws some icons as `data:` images. Pages of
/// this origin may frame it (as they may the console), nobody else.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; connect-src 'self'; font-src 'self' data:; base-uri 'none'; \
    form-action 'none'; frame-ancestors 'self'";

async fn page() -> impl IntoResponse {
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (CONTENT_SECURITY_POLICY, POLICY),
        ],
        PAGE,
    )
}

/// The page's paths: `/docs`, `/docs/`, one per asset and one per feature token.
pub fn paths() -> Vec<String> {
    ["/docs".to_owned(), "/docs/".to_owned()]
        .into_iter()
        .chain(ASSETS.iter().map(|(name, _, _)| asset_path(name)))
        .chain(Feature::ALL.iter().map(|f| feature_path(*f)))
        .collect()
}

fn feature_path(feature: Feature) -> String {
    format!("/docs{}", feature.docs_path())
}

fn asset_path(name: &str) -> String {
    format!("/docs/{name}")
}

/// `/docs`, `/docs/{asset}` for each of [`ASSETS`] and `/docs/features/{token}` for each
/// feature token (the paths of [`paths`]).
pub fn routes() -> Router<AppState> {
    let features = Feature::ALL.iter().fold(Router::new(), |router, &feature| {
        router.route(
            &feature_path(feature),
            get(move || async move {
                (
                    [
                        (CONTENT_TYPE, "text/plain; charset=utf-8"),
                        (CACHE_CONTROL, "public, max-age=3600"),
                    ],
                    feature.documentation(),
                )
            }),
        )
    });
    ASSETS
        .iter()
        .fold(
            Router::new()
                .route("/docs", get(page))
                .route("/docs/", get(page)),
            |router, &(name, content_type, bytes)| {
                router.route(
                    &asset_path(name),
                    get(move || async move {
                        (
                            [
                                (CONTENT_TYPE, content_type),
                                (CACHE_CONTROL, "public, max-age=3600"),
                            ],
                            bytes,
                        )
                    }),
                )
            },
        )
        .merge(features)
}
