//! The one reader of the site's own HTML, on html5gum's WHATWG tokenizer: the ids a page
//! defines and the URLs it points to (for the link check), and the text of its element
//! marked [`BODY`] with the title inside it (for the search index).
//!
//! Attribute values and text are decoded as a browser decodes them (every named and numeric
//! character reference), quoting is the tokenizer's, and the content of `<script>` and
//! `<style>` elements and of comments is neither markup nor text, so an escaped data field
//! (`&lt;img src=x&gt;` in a `<meta content="…">`) is never read as a tag or a link.

use std::collections::BTreeSet;
use std::ops::Range;

use html5gum::emitters::callback::{CallbackEmitter, CallbackEvent};
use html5gum::{Emitter, ForwardingEmitter, Span, Tokenizer};

/// The attribute that marks what a page is found by.
pub const BODY: &str = "data-pagefind-body";

/// What one pass over a page found.
#[derive(Debug, Default)]
pub struct Reading {
    /// The ids of its elements.
    pub ids: BTreeSet<String>,
    /// Every `href` and `src` of its elements, in document order.
    pub urls: Vec<String>,
    /// The text of the element marked [`BODY`] (of the whole page when none is), tags read
    /// as word breaks and white space collapsed; empty unless asked for.
    pub text: String,
    /// The text of the first `<h1>` inside that element; empty unless asked for.
    pub title: String,
}

/// Reads `html`; its text and title only when `text` is true.
pub fn read(html: &[u8], text: bool) -> Reading {
    let mut state = State {
        text,
        gathering: text,
        ..State::default()
    };
    let mut emitter = CallbackEmitter::new(|event: CallbackEvent<'_>, _: Span<()>| {
        state.event(event);
        None::<std::convert::Infallible>
    });
    // A script's or a style's content is read as the browser reads it, as raw text.
    emitter.naively_switch_states(true);
    // The callback takes every event, so the tokenizer yields nothing: running it to its end
    // is the pass.
    Tokenizer::new_with_emitter(html, Quiet(emitter)).for_each(|token| match token {
        Ok(never) => match never {},
    });
    state.finish()
}

/// An emitter that tells the tokenizer no parse errors are wanted, so it skips checking every
/// character for them (the reader ignores them; a third of its time went to the checks).
struct Quiet<E>(E);

impl<E: Emitter> ForwardingEmitter for Quiet<E> {
    type Token = E::Token;

    fn inner(&mut self) -> &mut impl Emitter<Token = Self::Token> {
        &mut self.0
    }

    fn should_emit_errors(&mut self) -> bool {
        false
    }
}

/// `bytes` as text: validated as UTF-8 (the site's own pages always are), invalid
/// sequences replaced only when there are any.
fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The reader's state between the tokenizer's events.
#[derive(Debug, Default)]
struct State {
    /// Whether the text is wanted.
    text: bool,
    /// Whether text is still gathered: it is wanted, and the marked element has not closed
    /// (after it, nothing the reading keeps can come).
    gathering: bool,
    found: Reading,
    /// Inside a start tag.
    in_tag: bool,
    /// The name of the start tag being read, or last read.
    tag: Vec<u8>,
    /// The attribute whose value comes next.
    attribute: Vec<u8>,
    /// Whether the start tag being read carries [`BODY`].
    marks: bool,
    /// Inside `<script>` or `<style>`.
    raw: bool,
    /// The whole page's text, not yet collapsed.
    all: String,
    /// The marked element: its name, how deep in elements of that name the reader is, and
    /// where its text starts in `all` (and ends, once closed).
    marked: Option<Marked>,
    /// The first `<h1>`'s text in `all`, inside the marked element and anywhere.
    h1: Headings,
}

#[derive(Debug)]
struct Marked {
    name: Vec<u8>,
    depth: usize,
    text: Range<usize>,
    open: bool,
}

#[derive(Debug, Default)]
struct Headings {
    /// The `<h1>` being read: where its text starts in `all`.
    reading: Option<usize>,
    first: Option<Range<usize>>,
    first_marked: Option<Range<usize>>,
}

impl State {
    fn event(&mut self, event: CallbackEvent<'_>) {
        match event {
            CallbackEvent::OpenStartTag { name } => {
                self.in_tag = true;
                self.tag.clear();
                self.tag.extend_from_slice(name);
                self.marks = false;
                self.attribute.clear();
                self.word_break();
            }
            CallbackEvent::AttributeName { name } if self.in_tag => {
                self.attribute.clear();
                self.attribute.extend_from_slice(name);
                if name == BODY.as_bytes() {
                    self.marks = true;
                }
            }
            CallbackEvent::AttributeValue { value } if self.in_tag => {
                let value = || text_of(value).into_owned();
                match self.attribute.as_slice() {
                    b"id" => {
                        self.found.ids.insert(value());
                    }
                    b"href" | b"src" => self.found.urls.push(value()),
                    _ => {}
                }
            }
            CallbackEvent::CloseStartTag { self_closing } if self.in_tag => {
                self.in_tag = false;
                self.open(self_closing);
            }
            CallbackEvent::EndTag { name } => {
                self.in_tag = false;
                self.close(name);
            }
            CallbackEvent::String { value } if self.gathering && !self.raw => {
                self.all.push_str(&text_of(value));
            }
            CallbackEvent::Comment { .. } => self.word_break(),
            _ => {}
        }
    }

    fn word_break(&mut self) {
        if self.gathering {
            self.all.push(' ');
        }
    }

    fn open(&mut self, self_closing: bool) {
        let name = &self.tag;
        if matches!(name.as_slice(), b"script" | b"style") && !self_closing {
            self.raw = true;
        }
        if !self.gathering {
            return;
        }
        if name.as_slice() == b"h1" && self.h1.reading.is_none() && !self_closing {
            self.h1.reading = Some(self.all.len());
        }
        match &mut self.marked {
            None if self.marks => {
                self.marked = Some(Marked {
                    name: name.clone(),
                    depth: 1,
                    text: self.all.len()..self.all.len(),
                    open: true,
                });
            }
            Some(marked) if marked.open && marked.name == *name && !self_closing => {
                marked.depth += 1;
            }
            _ => {}
        }
    }

    fn close(&mut self, name: &[u8]) {
        if matches!(name, b"script" | b"style") {
            self.raw = false;
        }
        if !self.gathering {
            return;
        }
        self.word_break();
        if name == b"h1"
            && let Some(start) = self.h1.reading.take()
        {
            let heading = start..self.all.len();
            let inside = self
                .marked
                .as_ref()
                .is_some_and(|marked| marked.open && heading.start >= marked.text.start);
            if inside && self.h1.first_marked.is_none() {
                self.h1.first_marked = Some(heading.clone());
            }
            self.h1.first.get_or_insert(heading);
        }
        if let Some(marked) = &mut self.marked
            && marked.open
            && marked.name == name
        {
            marked.depth -= 1;
            if marked.depth == 0 {
                marked.open = false;
                marked.text.end = self.all.len();
                self.gathering = false;
            }
        }
    }

    fn finish(mut self) -> Reading {
        if self.text {
            let collapse = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
            let (text, title) = match &self.marked {
                Some(marked) => {
                    let end = if marked.open {
                        self.all.len()
                    } else {
                        marked.text.end
                    };
                    (marked.text.start..end, self.h1.first_marked.clone())
                }
                None => (0..self.all.len(), self.h1.first.clone()),
            };
            self.found.text = collapse(&self.all[text]);
            self.found.title = title.map_or_else(String::new, |title| collapse(&self.all[title]));
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_ids_outside_scripts_comments_and_attribute_values() {
        let html = r#"<a href="/a/" id=top>x</a><!-- <a href="/no/"> --><script>var s = '<a href="/no2/">';</script><img src='/i.png' alt="a > b"><a class=x href=/b/>"#;
        let read = read(html.as_bytes(), false);
        assert_eq!(read.urls, ["/a/", "/i.png", "/b/"]);
        assert_eq!(read.ids.iter().collect::<Vec<_>>(), ["top"]);
    }

    #[test]
    fn an_escaped_tag_in_an_attribute_is_text_not_a_link() {
        // What a failure reason of `<img src=x onerror=alert(1)> tried` becomes in a page.
        let html = r#"<meta name="description" content="&lt;img src=x onerror=alert(1)&gt; tried"><p title='src=y'>&lt;a href=z&gt;</p>"#;
        let read = read(html.as_bytes(), true);
        assert!(read.urls.is_empty(), "{:?}", read.urls);
        assert_eq!(read.text, "<a href=z>");
    }

    #[test]
    fn character_references_are_decoded_as_a_browser_decodes_them() {
        let html = r#"<a href="/a/?x=1&amp;y=2&#x23;f">&rarr; &eacute;&#233; &nbsp;&lt;&gt;&quot;&#39;</a>"#;
        let read = read(html.as_bytes(), true);
        assert_eq!(read.urls, ["/a/?x=1&y=2#f"]);
        assert_eq!(read.text, "→ éé <>\"'");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_read_as_replacement_characters() {
        let reading = read(
            b"<p id=\"a\xffb\"><a href=\"/\xc3\">\xe9t\xc3\xa9</a></p>",
            true,
        );
        assert!(reading.ids.contains("a\u{FFFD}b"));
        assert_eq!(reading.urls, ["/\u{FFFD}"]);
        assert_eq!(reading.text, "\u{FFFD}t\u{e9}");
    }

    #[test]
    fn the_marked_element_and_its_first_heading() {
        let html = r#"<html><head><title>T</title></head><body><nav><div>Runs</div><h1>outside</h1></nav><div class="record-head" data-pagefind-body><h1>qwen &amp; <em>co</em></h1><div class="narrative"><div>deep <em>note</em></div><script>no();</script></div></div><table><tr><td>1.0</td></tr></table></body></html>"#;
        let read = read(html.as_bytes(), true);
        assert_eq!(read.title, "qwen & co");
        assert_eq!(read.text, "qwen & co deep note");
    }

    #[test]
    fn a_page_without_a_marked_element_is_read_whole() {
        let html = "<html><body><h1>A <b>page</b></h1><p>its&nbsp;text</p></body></html>";
        let read = read(html.as_bytes(), true);
        assert_eq!(read.title, "A page");
        assert_eq!(read.text, "A page its text");
        assert!(read.ids.is_empty());
    }

    #[test]
    fn text_is_read_only_when_asked_for() {
        let read = read(b"<h1 id=a>x</h1>", false);
        assert!(read.text.is_empty() && read.title.is_empty());
        assert!(read.ids.contains("a"));
    }
}
