//! The console's settings: the base-map tile source (`serve --tile-url`, `--tile-attribution`).
//!
//! Tiles are the only thing the page loads from elsewhere, so the tile URL also decides the
//! one foreign origin the page's Content-Security-Policy allows for images.

/// A base-map tile URL template, as Leaflet takes it: `{z}`, `{x}` and `{y}` (and optionally
/// `{s}` as the first label of the host, for subdomains a, b, c; `{r}` for retina tiles).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileUrl {
    template: String,
    /// The CSP source of the tile server: `https://tile.example.org`, `https://*.example.org`.
    source: String,
}

impl TileUrl {
    /// Reads and validates `--tile-url`; the error says what is wrong, for the operator.
    pub fn parse(text: &str) -> Result<TileUrl, String> {
        let template = text.trim();
        let fail = |why: &str| {
            Err(format!(
                "`{text}` is not a tile URL template: {why} (e.g. https://tile.openstreetmap.org/{{z}}/{{x}}/{{y}}.png)"
            ))
        };
        let Some((scheme, rest)) = template.split_once("://") else {
            return fail("it must start with http:// or https://");
        };
        if !matches!(scheme, "http" | "https") {
            return fail("it must start with http:// or https://");
        }
        for part in ["{z}", "{x}", "{y}"] {
            if !template.contains(part) {
                return fail(&format!("{part} is missing"));
            }
        }
        // The page takes the template from an HTML attribute and Leaflet puts it in `src`:
        // characters that have no place in a URL are refused rather than escaped twice.
        if template
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "\"'<>\\`".contains(c))
        {
            return fail("it contains a space, quote, angle bracket or backslash");
        }
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if authority.contains('@') {
            return fail("it must not carry a user name or password");
        }
        let (host_pattern, concrete) = match authority.strip_prefix("{s}.") {
            Some(rest) => (format!("*.{rest}"), format!("a.{rest}")),
            None => (authority.to_owned(), authority.to_owned()),
        };
        if concrete.contains(['{', '}']) {
            return fail("{s} may only be the first label of the host");
        }
        match url::Url::parse(&format!("{scheme}://{concrete}/")) {
            Ok(url) if url.host_str().is_some_and(|h| !h.is_empty()) => {}
            _ => return fail("its host is not valid"),
        }
        Ok(TileUrl {
            template: template.to_owned(),
            source: format!("{scheme}://{host_pattern}"),
        })
    }

    /// The template as the page passes it to Leaflet.
    pub fn template(&self) -> &str {
        &self.template
    }

    /// The tile server as a Content-Security-Policy source expression.
    pub fn csp_source(&self) -> &str {
        &self.source
    }
}

/// The console's settings, fixed when the router is built.
#[derive(Debug, Clone, Default)]
pub struct ConsoleConfig {
    /// Base-map tiles; without them the routes draw on a plain background.
    pub tile_url: Option<TileUrl>,
    /// Attribution the tile provider requires (shown in the map's corner), plain text.
    pub tile_attribution: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::TileUrl;

    #[test]
    fn a_template_with_subdomains_allows_every_subdomain_of_its_host() {
        let t = TileUrl::parse("https://{s}.tile.example.org/{z}/{x}/{y}.png").unwrap();
        assert_eq!(t.csp_source(), "https://*.tile.example.org");
        let t = TileUrl::parse("http://127.0.0.1:8081/tiles/{z}/{x}/{y}{r}.png?k=1").unwrap();
        assert_eq!(t.csp_source(), "http://127.0.0.1:8081");
        assert_eq!(
            t.template(),
            "http://127.0.0.1:8081/tiles/{z}/{x}/{y}{r}.png?k=1"
        );
    }

    #[test]
    fn templates_that_cannot_work_or_would_escape_the_page_are_refused() {
        for bad in [
            "tile.example.org/{z}/{x}/{y}.png",
            "ftp://tile.example.org/{z}/{x}/{y}.png",
            "https://tile.example.org/{z}/{x}.png",
            "https://tile.example.org/{z}/{x}/{y}.png\" onload=\"x",
            "https://user:pw@tile.example.org/{z}/{x}/{y}.png",
            "https://tile.{s}.example.org/{z}/{x}/{y}.png",
            "https:///{z}/{x}/{y}.png",
        ] {
            let error = TileUrl::parse(bad).unwrap_err();
            assert!(error.contains("not a tile URL template"), "{bad}: {error}");
        }
    }
}
