//! The author's Markdown under `content/`: where each file belongs and its front matter.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::SiteError;

/// What a content file is the narrative of.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    /// `content/_index.md`: the home page.
    Home,
    /// `content/<name>.md`: a free page at `/<name>/`.
    Free(String),
    /// `content/<folder>/<key>.md`: the page of a record, in the folder of its kind's
    /// pages (`runs`, `sweeps`, `failures`, `quality`).
    Record(&'static str, String),
}

/// Front matter between `+++` lines.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrontMatter {
    /// The page title.
    pub title: Option<String>,
    /// One sentence for link previews.
    pub description: Option<String>,
    /// Order among free pages (lower first).
    #[serde(default)]
    pub weight: i64,
    /// Left out of the build unless `--drafts`.
    #[serde(default)]
    pub draft: bool,
}

/// One content file.
#[derive(Debug, Clone)]
pub struct Source {
    /// The file, as named in messages (relative to the project).
    pub file: PathBuf,
    /// Where it belongs.
    pub place: Place,
    /// Its front matter.
    pub front: FrontMatter,
    /// The Markdown after the front matter.
    pub body: String,
    /// The line of the file the body starts on.
    pub body_line: usize,
}

/// A file under `content/` that is copied into the site as it is (an image, say).
#[derive(Debug, Clone)]
pub struct Asset {
    /// The path inside the site.
    pub site_path: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// Everything under `content/`.
#[derive(Debug, Clone, Default)]
pub struct Content {
    /// The Markdown files, by path.
    pub sources: Vec<Source>,
    /// The other files.
    pub assets: Vec<Asset>,
}

/// Reads `content/` of the project at `root`; a missing folder is an empty one.
pub fn load(root: &Path, drafts: bool) -> Result<Content, Vec<SiteError>> {
    let dir = root.join("content");
    let mut content = Content::default();
    let mut errors = Vec::new();
    if !dir.is_dir() {
        return Ok(content);
    }
    let walker = walkdir::WalkDir::new(&dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| !entry.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                errors.push(SiteError::Content {
                    file: dir.clone(),
                    line: 0,
                    message: error.to_string(),
                });
                continue;
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        let relative = entry.path().strip_prefix(&dir).unwrap_or(entry.path());
        let file = Path::new("content").join(relative);
        let site_path = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let read = std::fs::read(entry.path()).map_err(|error| SiteError::Content {
            file: file.clone(),
            line: 0,
            message: format!("cannot read: {error}"),
        });
        let bytes = match read {
            Ok(bytes) => bytes,
            Err(error) => {
                errors.push(error);
                continue;
            }
        };
        if relative.extension().is_none_or(|ext| ext != "md") {
            content.assets.push(Asset { site_path, bytes });
            continue;
        }
        match parse(&file, relative, bytes) {
            Ok(source) if source.front.draft && !drafts => {}
            Ok(source) => content.sources.push(source),
            Err(error) => errors.push(error),
        }
    }
    if errors.is_empty() {
        Ok(content)
    } else {
        Err(errors)
    }
}

/// Reads one Markdown file of `content/` (`relative` to the project root, as
/// `content/method.md`); `None` when it is a draft left out of the build.
pub fn load_file(root: &Path, relative: &Path, drafts: bool) -> Result<Option<Source>, SiteError> {
    let inside = relative.strip_prefix("content").unwrap_or(relative);
    let bytes = std::fs::read(root.join(relative)).map_err(|error| SiteError::Content {
        file: relative.to_owned(),
        line: 0,
        message: format!("cannot read: {error}"),
    })?;
    let source = parse(relative, inside, bytes)?;
    Ok((!source.front.draft || drafts).then_some(source))
}

fn parse(file: &Path, relative: &Path, bytes: Vec<u8>) -> Result<Source, SiteError> {
    let error = |line: usize, message: String| SiteError::Content {
        file: file.to_owned(),
        line,
        message,
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        error(line, "expected UTF-8 text".into())
    })?;
    let place = place_of(relative).ok_or_else(|| {
        error(
            1,
            "expected content/_index.md, content/<page>.md or a file under content/runs/, \
             content/failures/, content/sweeps/ or content/quality/"
                .into(),
        )
    })?;
    let (front, body, body_line) =
        split_front_matter(&text).map_err(|(line, message)| error(line, message))?;
    Ok(Source {
        file: file.to_owned(),
        place,
        front,
        body: body.to_owned(),
        body_line,
    })
}

fn place_of(relative: &Path) -> Option<Place> {
    let stem = relative.file_stem()?.to_str()?.to_owned();
    let parts: Vec<_> = relative.iter().filter_map(|p| p.to_str()).collect();
    match parts.as_slice() {
        ["_index.md"] => Some(Place::Home),
        [_] => Some(Place::Free(stem)),
        [folder, _] => {
            super::routes::records_in(folder).map(|route| Place::Record(route.folder, stem))
        }
        _ => None,
    }
}

/// Splits `+++` TOML front matter from the body: (front matter, body, line the body starts on).
fn split_front_matter(text: &str) -> Result<(FrontMatter, &str, usize), (usize, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("+++\n")
        .or_else(|| text.strip_prefix("+++\r\n"))
    else {
        return Ok((FrontMatter::default(), text, 1));
    };
    let end = rest
        .match_indices("+++")
        .find(|(at, _)| *at == 0 || rest[..*at].ends_with('\n'))
        .map(|(at, _)| at)
        .ok_or((
            1,
            "expected a closing +++ line after the front matter".to_owned(),
        ))?;
    let toml_text = &rest[..end];
    let front: FrontMatter = toml::from_str(toml_text).map_err(|error| {
        let offset = error.span().map_or(0, |span| span.start);
        let line = toml_text[..offset].matches('\n').count() + 2;
        (line, format!("front matter: {}", error.message().trim()))
    })?;
    let after = &rest[end + 3..];
    let after = after
        .strip_prefix("\r\n")
        .or_else(|| after.strip_prefix('\n'))
        .unwrap_or(after);
    let body_line = text[..text.len() - after.len()].matches('\n').count() + 1;
    Ok((front, after, body_line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_split_with_its_lines() {
        let (front, body, line) =
            split_front_matter("+++\ntitle = \"Method\"\nweight = 2\n+++\n# Hi\n").unwrap();
        assert_eq!(front.title.as_deref(), Some("Method"));
        assert_eq!(front.weight, 2);
        assert_eq!(body, "# Hi\n");
        assert_eq!(line, 5);
        let (front, body, line) = split_front_matter("no front matter\n").unwrap();
        assert_eq!(front, FrontMatter::default());
        assert_eq!(body, "no front matter\n");
        assert_eq!(line, 1);
    }

    #[test]
    fn front_matter_errors_name_the_line() {
        let (line, message) =
            split_front_matter("+++\ntitle = \"x\"\ntitel = \"y\"\n+++\n").unwrap_err();
        assert_eq!(line, 3);
        assert!(message.contains("unknown field `titel`"), "{message}");
        let (line, _) = split_front_matter("+++\ntitle = \"x\"\n").unwrap_err();
        assert_eq!(line, 1);
    }

    #[test]
    fn places() {
        assert_eq!(place_of(Path::new("_index.md")), Some(Place::Home));
        assert_eq!(
            place_of(Path::new("method.md")),
            Some(Place::Free("method".into()))
        );
        assert_eq!(
            place_of(Path::new("runs/qwen36-moe-mtp.md")),
            Some(Place::Record("runs", "qwen36-moe-mtp".into()))
        );
        assert_eq!(place_of(Path::new("misc/x.md")), None);
    }
}
