//! The one way a route joins the `/v2` router: [`ApiRoutes`] takes handlers only as
//! `utoipa_axum::routes!` gives them (path and methods from their `#[utoipa::path]`), so a route
//! cannot be served without being documented. It has no way to add a plain axum route: the
//! router and the document are two views of the same registrations, and the registrations
//! themselves ([`Parts::served_paths`]) are what the route-coverage test compares with the
//! served document.

use axum::Router;
use utoipa::openapi::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

use crate::AppState;

/// Documented routes, and the spec's trailing-slash spellings of some of them.
#[derive(Default)]
pub struct ApiRoutes {
    inner: OpenApiRouter<AppState>,
    aliases: Vec<Alias>,
}

/// A second spelling of a documented path, serving its handlers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    /// The spelling served (`/vehicles/`).
    pub alias: &'static str,
    /// The documented path whose operations it shares (`/vehicles`).
    pub path: String,
}

/// What the `/v2` router is built from: the router, its documented paths and its aliases.
pub struct Parts {
    /// Every route (without the auth layer, which [`crate::app`] adds).
    pub router: Router<AppState>,
    /// The OpenAPI paths the routes were registered with.
    pub document: OpenApi,
    /// The aliases served beside them.
    pub aliases: Vec<Alias>,
}

impl ApiRoutes {
    /// No routes yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `handlers` at the path of their `#[utoipa::path]`.
    pub fn routes(mut self, handlers: UtoipaMethodRouter<AppState>) -> Self {
        self.inner = self.inner.routes(handlers);
        self
    }

    /// As [`ApiRoutes::routes`], and at `alias` too (documented as its own path with the same
    /// operations).
    pub fn routes_with_alias(
        mut self,
        alias: &'static str,
        handlers: UtoipaMethodRouter<AppState>,
    ) -> Self {
        let (schemas, paths, methods) = handlers;
        let mut documented = paths.paths.keys();
        let path = documented.next().expect("the handlers' path").clone();
        assert!(documented.next().is_none(), "handlers of one path");
        self.inner = self
            .inner
            .route(alias, methods.clone())
            .routes((schemas, paths, methods));
        self.aliases.push(Alias { alias, path });
        self
    }

    /// These routes and `other`'s.
    pub fn merge(mut self, other: ApiRoutes) -> Self {
        self.inner = self.inner.merge(other.inner);
        self.aliases.extend(other.aliases);
        self
    }

    /// The router, the documented paths and the aliases.
    pub fn into_parts(self) -> Parts {
        let (router, document) = self.inner.split_for_parts();
        Parts {
            router,
            document,
            aliases: self.aliases,
        }
    }
}

impl Parts {
    /// Every path the router serves: the documented ones and the aliases.
    pub fn served_paths(&self) -> Vec<String> {
        self.document
            .paths
            .paths
            .keys()
            .cloned()
            .chain(self.aliases.iter().map(|a| a.alias.to_owned()))
            .collect()
    }
}
