//! Static files next to the API, as `kubectl proxy --www=DIR --www-prefix=PREFIX` serves them: a
//! request under the prefix is answered from the folder with the prefix stripped (a folder's
//! `index.html` for a folder), and the prefix without its trailing slash redirects to it, so that
//! a bundle built for `/explorer/` runs against the API on the same origin.

use std::path::{Path, PathBuf};

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::IntoResponse;
use axum::Router;
use tower_http::services::ServeDir;

/// Path segments the API (and kube-sim's own controls) own: a prefix starting with one would
/// hide them.
const RESERVED: [&str; 8] = ["api", "apis", "version", "openapi", "healthz", "livez", "readyz", "_sim"];

/// Where static files are served from and under which path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Www {
    pub dir: PathBuf,
    /// Starts and ends with `/`, like kubectl's `--www-prefix` (`/explorer/`).
    pub prefix: String,
}

impl Www {
    /// Checks the folder and the prefix; `explorer`, `/explorer` and `/explorer/` all mean
    /// `/explorer/`.
    pub fn new(dir: &Path, prefix: &str) -> Result<Www, String> {
        if !dir.is_dir() {
            return Err(format!("--www {}: not a folder", dir.display()));
        }
        let trimmed = prefix.trim_matches('/');
        if trimmed.is_empty() {
            return Err(format!("--www-prefix {prefix:?}: expected a path such as /explorer/; / would hide the API"));
        }
        if trimmed.split('/').any(|s| s.is_empty() || s == "." || s == "..")
            || !trimmed.chars().all(|c| c.is_ascii_alphanumeric() || "-._~/".contains(c))
        {
            return Err(format!("--www-prefix {prefix:?}: expected path segments of letters, digits, -, ., _ and ~"));
        }
        let first = trimmed.split('/').next().unwrap_or_default();
        if RESERVED.contains(&first) {
            return Err(format!("--www-prefix {prefix:?}: /{first} belongs to the API"));
        }
        Ok(Www { dir: dir.to_path_buf(), prefix: format!("/{trimmed}/") })
    }

    /// The routes: the folder under the prefix, and the bare prefix redirected to it.
    pub fn routes<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        let bare = self.prefix.trim_end_matches('/').to_owned();
        let target = self.prefix.clone();
        Router::new().nest_service(&bare, ServeDir::new(&self.dir)).layer(middleware::from_fn(
            move |req: Request, next: Next| {
                let (bare, target) = (bare.clone(), target.clone());
                async move {
                    if req.uri().path() == bare {
                        let location = match req.uri().query() {
                            Some(q) => format!("{target}?{q}"),
                            None => target,
                        };
                        return (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, location)]).into_response();
                    }
                    next.run(req).await
                }
            },
        ))
    }
}

/// Whether `path` is one the static files answer.
pub fn is_static(www: &Www, path: &str) -> bool {
    path.starts_with(&www.prefix) || path == www.prefix.trim_end_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_normalized_and_checked() {
        let dir = std::env::temp_dir();
        assert_eq!(Www::new(&dir, "/explorer/").unwrap().prefix, "/explorer/");
        assert_eq!(Www::new(&dir, "explorer").unwrap().prefix, "/explorer/");
        assert_eq!(Www::new(&dir, "/ui/explorer").unwrap().prefix, "/ui/explorer/");
        assert!(Www::new(&dir, "/").unwrap_err().contains("would hide the API"));
        assert!(Www::new(&dir, "/apis/x/").unwrap_err().contains("belongs to the API"));
        assert!(Www::new(&dir, "/a/../b/").unwrap_err().contains("expected path segments"));
        assert!(Www::new(&dir, "/a b/").is_err());
        assert!(Www::new(Path::new("/no/such/folder"), "/x/").unwrap_err().contains("not a folder"));
        let www = Www::new(&dir, "/explorer/").unwrap();
        assert!(is_static(&www, "/explorer/index.html") && is_static(&www, "/explorer"));
        assert!(!is_static(&www, "/explorers") && !is_static(&www, "/api/v1"));
    }
}
