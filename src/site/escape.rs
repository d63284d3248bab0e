//! HTML escaping: the one escape the templates (Tera's autoescape), views and shortcodes use.

/// HTML-escapes text for element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    escape_into(&mut out, text);
    out
}

/// [`escape`], appended to `out`.
pub fn escape_into(out: &mut String, text: &str) {
    // The runs between the five characters are copied whole: a page is mostly such runs.
    let mut from = 0;
    for (at, byte) in text.bytes().enumerate() {
        let entity = match byte {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&text[from..at]);
        out.push_str(entity);
        from = at + 1;
    }
    out.push_str(&text[from..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_five_characters_html_gives_meaning_are_escaped() {
        assert_eq!(
            escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        // Text around them, in any script, is kept as it is.
        assert_eq!(escape("plain"), "plain");
        assert_eq!(escape("«é» & 漢字"), "«é» &amp; 漢字");
        assert_eq!(escape(""), "");
        let mut out = String::from("<b>");
        escape_into(&mut out, "a<b");
        assert_eq!(out, "<b>a&lt;b");
    }
}
