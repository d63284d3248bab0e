//! Markdown to HTML: pulldown-cmark with tables, footnotes, strikethrough and heading ids
//! with anchor links, plus shortcodes (`{{ name(key="value") }}`) that embed the data views.
//! Shortcodes inside code blocks and code spans are left alone.

use std::collections::BTreeMap;
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd, html};

/// A shortcode call as written in the Markdown.
#[derive(Debug, Clone, PartialEq)]
pub struct Shortcode {
    /// Its name.
    pub name: String,
    /// Its arguments by name.
    pub args: BTreeMap<String, Arg>,
    /// The line it stands on (in the file).
    pub line: usize,
}

/// A shortcode argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// `"text"`.
    Text(String),
    /// `12`, `0.5`.
    Number(f64),
    /// `true`, `false`.
    Bool(bool),
}

/// What a shortcode expands to.
pub struct Expansion {
    /// The HTML.
    pub html: String,
    /// Whether it stands as a block (a table, a chart) rather than inside a sentence.
    pub block: bool,
}

/// A rendering problem at a line of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkdownError {
    /// The line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The HTML of one Markdown text and the site links it makes.
#[derive(Debug, Default)]
pub struct Rendered {
    /// The HTML.
    pub html: String,
    /// Site-internal links (path, line), for checking once every page is known.
    pub links: Vec<(String, usize)>,
}

const MARK: &str = "BENCHSITESHORTCODE";

/// Renders `source`, whose first line is line `first_line` of its file. Links starting with
/// `/` get the site's `base_path` in front. Every shortcode goes through `expand`.
pub fn render(
    source: &str,
    first_line: usize,
    base_path: &str,
    expand: &mut dyn FnMut(&Shortcode) -> Result<Expansion, String>,
) -> Result<Rendered, MarkdownError> {
    let lines = LineIndex::new(source, first_line);
    let code = code_ranges(source);
    let mut text = String::with_capacity(source.len());
    let mut expansions = Vec::new();
    let mut rest = 0;
    let mut search = 0;
    while let Some(found) = source[search..].find("{{") {
        let start = search + found;
        if let Some(range) = code.iter().find(|range| range.contains(&start)) {
            search = range.end.max(start + 2);
            continue;
        }
        let line = lines.line_of(start);
        let end = source[start..]
            .find("}}")
            .map(|at| start + at + 2)
            .ok_or_else(|| MarkdownError {
                line,
                message: "expected }} to close the shortcode".into(),
            })?;
        let call = parse_call(&source[start + 2..end - 2], line)?;
        let expansion = expand(&call).map_err(|message| MarkdownError { line, message })?;
        text.push_str(&source[rest..start]);
        text.push_str(&format!("{MARK}{}X", expansions.len()));
        expansions.push(expansion);
        rest = end;
        search = end;
    }
    text.push_str(&source[rest..]);

    let text_lines = LineIndex::new(&text, first_line);
    let mut links = Vec::new();
    let mut site_dest = |dest_url: CowStr<'_>, start: usize| -> CowStr<'static> {
        match site_link(&dest_url, base_path) {
            Some(url) => {
                links.push((url.clone(), text_lines.line_of(start)));
                CowStr::from(url)
            }
            None => CowStr::from(dest_url.into_string()),
        }
    };
    let events = with_heading_ids(
        Parser::new_ext(&text, options())
            .into_offset_iter()
            .map(|(event, range)| match event {
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                }) => Event::Start(Tag::Link {
                    link_type,
                    dest_url: site_dest(dest_url, range.start),
                    title,
                    id,
                }),
                Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                }) => Event::Start(Tag::Image {
                    link_type,
                    dest_url: site_dest(dest_url, range.start),
                    title,
                    id,
                }),
                other => other,
            })
            .collect(),
    );
    let mut out = String::with_capacity(text.len() * 2);
    html::push_html(&mut out, events.into_iter());
    for (index, expansion) in expansions.iter().enumerate() {
        let mark = format!("{MARK}{index}X");
        if expansion.block {
            out = out.replace(&format!("<p>{mark}</p>"), &expansion.html);
        }
        out = out.replace(&mark, &expansion.html);
    }
    Ok(Rendered { html: out, links })
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// A link into the site (`/runs/x/`) with the base path in front; `None` for others.
fn site_link(url: &str, base_path: &str) -> Option<String> {
    let path = url.strip_prefix('/')?;
    if path.starts_with('/') {
        return None;
    }
    Some(format!("{base_path}{path}"))
}

/// The byte ranges of code blocks and code spans, where shortcodes are not expanded.
fn code_ranges(source: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut block_start = None;
    for (event, range) in Parser::new_ext(source, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => block_start = Some(range.start),
            Event::End(TagEnd::CodeBlock) => {
                ranges.push(block_start.take().unwrap_or(range.start)..range.end);
            }
            Event::Code(_) => ranges.push(range),
            _ => {}
        }
    }
    ranges
}

/// Gives every heading without an explicit `{#id}` one from its text (unique in the page)
/// and an anchor link to itself.
fn with_heading_ids(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::with_capacity(events.len());
    let mut index = 0;
    while index < events.len() {
        if let Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) = &events[index]
        {
            let end = events[index..]
                .iter()
                .position(|e| matches!(e, Event::End(TagEnd::Heading(_))))
                .map_or(events.len(), |at| index + at);
            let text: String = events[index + 1..end]
                .iter()
                .filter_map(|e| match e {
                    Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                    _ => None,
                })
                .collect();
            let base =
                id.as_ref()
                    .map(|id| id.to_string())
                    .unwrap_or_else(|| match crate::data::slugify(&text) {
                        slug if slug.is_empty() => "section".into(),
                        slug => slug,
                    });
            let count = used.entry(base.clone()).or_insert(0);
            let unique = if *count == 0 {
                base.clone()
            } else {
                format!("{base}-{count}")
            };
            *count += 1;
            out.push(Event::Start(Tag::Heading {
                level: *level,
                id: Some(CowStr::from(unique.clone())),
                classes: classes.clone(),
                attrs: attrs.clone(),
            }));
            out.extend(events[index + 1..end].iter().cloned());
            out.push(Event::Html(CowStr::from(format!(
                " <a class=\"anchor\" href=\"#{unique}\" aria-label=\"Link to this section\">#</a>"
            ))));
            index = end;
            continue;
        }
        out.push(events[index].clone());
        index += 1;
    }
    out
}

/// Parses `name(key="value", n=1, flag=true)`.
fn parse_call(inner: &str, line: usize) -> Result<Shortcode, MarkdownError> {
    let error = |message: String| MarkdownError { line, message };
    let inner = inner.trim();
    let open = inner.find('(').ok_or_else(|| {
        error(format!(
            "expected name(...) in the shortcode, found {inner:?}"
        ))
    })?;
    let name = inner[..open].trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(error(format!("expected a shortcode name, found {name:?}")));
    }
    let body = inner[open + 1..]
        .strip_suffix(')')
        .ok_or_else(|| error(format!("expected ) to close the arguments of {name}")))?;
    let mut args = BTreeMap::new();
    let mut rest = body.trim();
    while !rest.is_empty() {
        let eq = rest.find('=').ok_or_else(|| {
            error(format!(
                "expected key=value in the arguments of {name}, found {rest:?}"
            ))
        })?;
        let key = rest[..eq].trim().to_owned();
        let after = rest[eq + 1..].trim_start();
        let (value, tail) = if let Some(quoted) = after.strip_prefix('"') {
            let mut value = String::new();
            let mut chars = quoted.char_indices();
            let mut end = None;
            while let Some((at, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => {
                        end = Some(at);
                        break;
                    }
                    c => value.push(c),
                }
            }
            let end = end.ok_or_else(|| error(format!("expected a closing quote for {key}")))?;
            (Arg::Text(value), &quoted[end + 1..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            let word = after[..end].trim();
            let value = match word {
                "true" => Arg::Bool(true),
                "false" => Arg::Bool(false),
                _ => Arg::Number(word.parse().map_err(|_| {
                    error(format!(
                        "expected a quoted string, a number or true/false for {key}, found {word:?}"
                    ))
                })?),
            };
            (value, &after[end..])
        };
        if args.insert(key.clone(), value).is_some() {
            return Err(error(format!("{key} is given twice")));
        }
        let tail = tail.trim_start();
        rest = match tail.strip_prefix(',') {
            Some(after_comma) => after_comma.trim_start(),
            None if tail.is_empty() => tail,
            None => return Err(error(format!("expected , between the arguments of {name}"))),
        };
    }
    Ok(Shortcode {
        name: name.to_owned(),
        args,
        line,
    })
}

/// Byte offsets to file lines.
struct LineIndex {
    starts: Vec<usize>,
    first_line: usize,
}

impl LineIndex {
    fn new(text: &str, first_line: usize) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Self { starts, first_line }
    }

    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset) - 1 + self.first_line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(source: &str) -> Rendered {
        render(source, 1, "/", &mut |call| {
            Ok(Expansion {
                html: format!("<div class=\"sc\">{}</div>", call.name),
                block: call.name != "inline",
            })
        })
        .unwrap()
    }

    #[test]
    fn headings_get_ids_and_anchors() {
        let html = plain("# Decode speed\n\n## Decode speed\n\n## Custom {#mine}\n").html;
        assert!(
            html.contains(
                "<h1 id=\"decode-speed\">Decode speed <a class=\"anchor\" href=\"#decode-speed\""
            ),
            "{html}"
        );
        assert!(html.contains("<h2 id=\"decode-speed-1\">"), "{html}");
        assert!(html.contains("<h2 id=\"mine\">"), "{html}");
    }

    #[test]
    fn tables_footnotes_strikethrough() {
        let html =
            plain("| a | b |\n|---|---|\n| 1 | 2 |\n\nText[^1] ~~old~~\n\n[^1]: note\n").html;
        assert!(html.contains("<table>"), "{html}");
        assert!(html.contains("<del>old</del>"), "{html}");
        assert!(html.contains("footnote-definition"), "{html}");
    }

    #[test]
    fn shortcodes_expand_outside_code_only() {
        let html = plain("{{ runs_table() }}\n\nSpeed {{ inline(id=\"x\") }} here.\n\n```\n{{ runs_table() }}\n```\n\n`{{ heatmap() }}`\n").html;
        assert!(
            html.contains("<div class=\"sc\">runs_table</div>\n<p>Speed"),
            "{html}"
        );
        assert!(!html.contains("<p><div"), "{html}");
        assert!(
            html.contains("Speed <div class=\"sc\">inline</div> here."),
            "{html}"
        );
        assert!(html.contains("<code>{{ runs_table() }}\n</code>"), "{html}");
        assert!(html.contains("<code>{{ heatmap() }}</code>"), "{html}");
    }

    #[test]
    fn shortcode_arguments() {
        let call = parse_call(
            " run(id=\"a\\\"b\", field=\"decode_tok_s\", n=2, on=true) ",
            4,
        )
        .unwrap();
        assert_eq!(call.name, "run");
        assert_eq!(call.args["id"], Arg::Text("a\"b".into()));
        assert_eq!(call.args["n"], Arg::Number(2.0));
        assert_eq!(call.args["on"], Arg::Bool(true));
        assert!(parse_call("run(id=)", 1).is_err());
        assert!(parse_call("run id", 1).is_err());
        assert!(parse_call("run(id=\"a\" x=1)", 1).is_err());
    }

    #[test]
    fn errors_carry_the_file_line() {
        let error = render("+++\n\nline two\n\n{{ nope() }}\n", 10, "/", &mut |_| {
            Err("unknown shortcode nope".into())
        })
        .err()
        .unwrap();
        assert_eq!(error.line, 14);
    }

    #[test]
    fn site_links_get_the_base_path_and_are_recorded() {
        let rendered = render(
            "See [method](/method/) and [x](https://example.org/).\n\n[r](/runs/a/)\n",
            3,
            "/report/",
            &mut |_| unreachable!(),
        )
        .unwrap();
        assert!(
            rendered.html.contains("href=\"/report/method/\""),
            "{}",
            rendered.html
        );
        assert!(rendered.html.contains("href=\"https://example.org/\""));
        assert_eq!(
            rendered.links,
            [
                ("/report/method/".to_string(), 3),
                ("/report/runs/a/".to_string(), 5)
            ]
        );
    }
}
