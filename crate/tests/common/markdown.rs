//! The fenced code blocks of a guide chapter, for the tests that run what the guide shows
//! (`guide.rs`, `add_algorithm.rs`): each block with its info string and, when an HTML comment
//! `<!-- MARKER PATH -->` stands before it, the file it is to be written to.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Parser, Tag, TagEnd};

/// A fenced code block: its info string (`sh`, `text`, `json,ignore`), its text, and the file
/// named by the marker comment before it, if any.
pub struct Block {
    pub info: String,
    pub body: String,
    pub file: Option<String>,
}

/// The fenced code blocks of `markdown` in order. A marker comment names the next block's file;
/// a top-level heading forgets a marker that no block followed.
pub fn blocks(markdown: &str, marker: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut pending: Option<String> = None;
    let mut block: Option<(String, String)> = None;
    for event in Parser::new(markdown) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => {
                if let Some(name) = h.trim().strip_prefix("<!--").and_then(|r| r.strip_suffix("-->")) {
                    if let Some(path) = name.trim().strip_prefix(marker) {
                        pending = Some(path.trim().to_string());
                    }
                }
            }
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                block = Some((info.to_string(), String::new()))
            }
            Event::Text(t) => {
                if let Some((_, body)) = block.as_mut() {
                    body.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                let Some((info, body)) = block.take() else { continue };
                out.push(Block { info, body, file: pending.take() });
            }
            Event::Start(Tag::Heading { level: HeadingLevel::H1, .. }) => pending = None,
            _ => {}
        }
    }
    out
}
