//! Where the site lives: the path prefix of every link and, when known, its absolute URL.

/// Where the site lives: the path prefix of every link and, when known, the absolute URL.
#[derive(Debug, Clone)]
pub struct Urls {
    /// `/` or `/report/`.
    pub base_path: String,
    /// `https://user.github.io/report/`, when base_url is absolute.
    pub absolute: Option<String>,
}

impl Urls {
    /// From a base_url setting.
    pub fn new(base_url: &str) -> Self {
        let with_slash = if base_url.ends_with('/') {
            base_url.to_owned()
        } else {
            format!("{base_url}/")
        };
        match with_slash.split_once("://") {
            Some((_, rest)) => {
                let path = rest.find('/').map_or("/", |at| &rest[at..]);
                Self {
                    base_path: path.to_owned(),
                    absolute: Some(with_slash.clone()),
                }
            }
            None => Self {
                base_path: if with_slash.starts_with('/') {
                    with_slash
                } else {
                    format!("/{with_slash}")
                },
                absolute: None,
            },
        }
    }

    /// The link to a path inside the site (`runs/x/`).
    pub fn page(&self, path: &str) -> String {
        format!("{}{}", self.base_path, path)
    }

    /// The absolute URL of a path, when the site's address is known.
    pub fn absolute(&self, path: &str) -> Option<String> {
        self.absolute.as_ref().map(|base| format!("{base}{path}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_under_a_project_path() {
        let urls = Urls::new("https://user.github.io/report");
        assert_eq!(urls.base_path, "/report/");
        assert_eq!(urls.page("runs/a/"), "/report/runs/a/");
        assert_eq!(
            urls.absolute("runs/a/").as_deref(),
            Some("https://user.github.io/report/runs/a/")
        );
        let root = Urls::new("/");
        assert_eq!(root.page("runs/"), "/runs/");
        assert_eq!(root.absolute("x"), None);
        assert_eq!(Urls::new("https://example.org").base_path, "/");
    }
}
