//! Naming an endpoint independently of how the router spells it.

use axum::extract::{MatchedPath, Request};
use axum::http::Method;

/// An endpoint as the middleware tables know it: the method and the route template relative to
/// `/v2`, with every path parameter written `{}` (so `{id}` and `{vehicle_id}` are the same
/// route) and without a trailing slash (so `/customers/` is `/customers`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RouteKey {
    method: Method,
    path: String,
}

impl RouteKey {
    /// The key of `method` on the route template `template` (with or without the `/v2` prefix).
    pub fn new(method: Method, template: &str) -> RouteKey {
        // HEAD is served by the GET route and counts as it.
        let method = if method == Method::HEAD {
            Method::GET
        } else {
            method
        };
        RouteKey {
            method,
            path: normalize_template(template),
        }
    }

    /// The key of a routed request; `None` before routing or when no route matched.
    pub fn of_request(req: &Request) -> Option<RouteKey> {
        let matched = req.extensions().get::<MatchedPath>()?;
        Some(RouteKey::new(req.method().clone(), matched.as_str()))
    }

    /// The method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The normalised template, e.g. `/vehicles/{}`.
    pub fn path(&self) -> &str {
        &self.path
    }
}

/// Strips the `/v2` prefix and a trailing slash: the concrete path as the API documents it.
pub fn strip_api_prefix(path: &str) -> &str {
    let path = match path.strip_prefix("/v2") {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
        _ => path,
    };
    match path.strip_suffix('/') {
        Some(rest) if !rest.is_empty() => rest,
        _ => path,
    }
}

fn normalize_template(template: &str) -> String {
    let stripped = strip_api_prefix(template);
    let segments: Vec<&str> = stripped
        .split('/')
        .map(|s| {
            if s.starts_with('{') && s.ends_with('}') {
                "{}"
            } else {
                s
            }
        })
        .collect();
    let joined = segments.join("/");
    if joined.is_empty() {
        "/".to_owned()
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_compared_without_prefix_parameter_names_or_trailing_slash() {
        let a = RouteKey::new(Method::GET, "/v2/vehicles/{vehicle_id}");
        let b = RouteKey::new(Method::GET, "/vehicles/{id}");
        assert_eq!(a, b);
        assert_eq!(a.path(), "/vehicles/{}");
        assert_eq!(
            RouteKey::new(Method::POST, "/customers/"),
            RouteKey::new(Method::POST, "/v2/customers")
        );
        assert_eq!(
            RouteKey::new(Method::HEAD, "/depots"),
            RouteKey::new(Method::GET, "/depots")
        );
        assert_ne!(
            RouteKey::new(Method::POST, "/vehicles"),
            RouteKey::new(Method::GET, "/vehicles")
        );
    }

    #[test]
    fn only_a_whole_v2_segment_is_stripped() {
        assert_eq!(strip_api_prefix("/v2/orders/"), "/orders");
        assert_eq!(strip_api_prefix("/v2"), "");
        assert_eq!(strip_api_prefix("/v20/orders"), "/v20/orders");
        assert_eq!(strip_api_prefix("/"), "/");
    }
}
