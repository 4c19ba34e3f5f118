//! The editor of users' own algorithms (workbench only): a text area over a highlighted copy of
//! its text (no editor library: the highlighter below is a few dozen lines), the template it
//! started from, Run, the script's error underlined at its line and column, and the failure that
//! stopped the run (node, handler, line). The reducer's side is `state/script.rs`.

use crate::i18n::{tr, Lang};
use crate::state::script::{template_title, templates, Placed, ScriptAction, ScriptEdit};
use crate::state::Action;
use election_lab::meta::k;
use std::rc::Rc;
use web_sys::{HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

/// What a stretch of the script is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    Plain,
    Keyword,
    Str,
    Number,
    Comment,
    /// A context function or `this`/`me`: what a handler acts through.
    Context,
}

const KEYWORDS: &[&str] = &[
    "fn", "let", "const", "if", "else", "while", "loop", "for", "in", "return", "break", "continue", "true", "false",
    "switch", "do", "until", "throw", "try", "catch", "private",
];
const CONTEXT: &[&str] = &[
    "this",
    "me",
    "send",
    "broadcast",
    "set_timer",
    "cancel_timer",
    "note",
    "set_role",
    "set_leader",
    "set_term",
    "param",
    "nodes",
    "sorted_nodes",
    "higher",
    "lower",
    "successor",
    "predecessor",
    "quorum",
    "n",
    "now",
    "heartbeats",
    "initial_leader",
    "latency_min",
    "latency_max",
];

/// The script cut into stretches `(kind, byte range)`, covering it all, in order.
pub fn tokens(src: &str) -> Vec<(Tok, std::ops::Range<usize>)> {
    let b = src.as_bytes();
    let mut out: Vec<(Tok, std::ops::Range<usize>)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let tok = if src[i..].starts_with("//") {
            i = src[i..].find('\n').map_or(b.len(), |n| i + n);
            Tok::Comment
        } else if src[i..].starts_with("/*") {
            i = src[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            Tok::Comment
        } else if c == b'"' || c == b'\'' || c == b'`' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            Tok::Str
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Tok::Number
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[start..i];
            match () {
                _ if KEYWORDS.contains(&word) => Tok::Keyword,
                _ if CONTEXT.contains(&word) => Tok::Context,
                _ => Tok::Plain,
            }
        } else {
            // Anything else up to the next character that may start a token (whole UTF-8 chars).
            i += src[i..].chars().next().map_or(1, char::len_utf8);
            while i < b.len() && !b[i].is_ascii_alphanumeric() && !b"_\"'`/".contains(&b[i]) && b[i].is_ascii() {
                i += 1;
            }
            Tok::Plain
        };
        // Merge plain stretches.
        match out.last_mut() {
            Some((Tok::Plain, r)) if tok == Tok::Plain => r.end = i,
            _ => out.push((tok, start..i)),
        }
    }
    out
}

/// The byte offset of 1-based `line` and `column` (in characters), clamped to the text.
pub fn offset(src: &str, line: usize, column: usize) -> Option<usize> {
    let start = if line <= 1 { 0 } else { src.match_indices('\n').nth(line - 2)?.0 + 1 };
    let rest = &src[start..];
    let end = rest.find('\n').unwrap_or(rest.len());
    let col = column.max(1) - 1;
    Some(start + rest[..end].char_indices().nth(col).map_or(end, |(o, _)| o))
}

/// The highlighted copy of `src`, with the stretch at `err` (a byte offset) underlined.
fn highlighted(src: &str, err: Option<usize>) -> Html {
    let class = |t: Tok| match t {
        Tok::Plain => None,
        Tok::Keyword => Some("kw"),
        Tok::Str => Some("str"),
        Tok::Number => Some("num"),
        Tok::Comment => Some("com"),
        Tok::Context => Some("ctx"),
    };
    let mut parts = Vec::new();
    for (t, r) in tokens(src) {
        match err.filter(|e| r.contains(e)) {
            // The stretch holding the error: the word (or character) at it underlined.
            Some(e) => {
                let len = if t == Tok::Plain { src[e..].chars().next().map_or(1, char::len_utf8) } else { r.end - e };
                let (at, end) = if t == Tok::Plain { (e, e + len) } else { (r.start, r.end) };
                let mark = match &src[at..end] {
                    "\n" => " \n".to_string(),
                    s => s.to_string(),
                };
                parts.push(html! { <span class={class(t)}>{ &src[r.start..at] }</span> });
                parts.push(
                    html! { <span class={classes!(class(t), "err")} data-testid="script-error-mark">{ mark }</span> },
                );
                parts.push(html! { <span class={class(t)}>{ &src[end..r.end] }</span> });
            }
            None => parts.push(match class(t) {
                Some(c) => html! { <span class={c}>{ &src[r] }</span> },
                None => html! { { &src[r] } },
            }),
        }
    }
    if err.is_some_and(|e| e >= src.len()) {
        parts.push(html! { <span class="err" data-testid="script-error-mark">{ " " }</span> });
    }
    parts.into_iter().collect::<Html>()
}

/// The editor's look, brought by the workbench (the player's style sheets do not grow): the text
/// area's own text is transparent over its highlighted copy, in the same font and box.
const CSS: &str = "\
.script-editor .script-tools { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-bottom: 6px; }
.script-editor .code { position: relative; overflow: auto; max-height: 26em; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); }
.script-editor .code pre, .script-editor .code textarea { margin: 0; padding: 6px 8px; border: 0; border-radius: 0; font: .8rem/1.45 ui-monospace, Menlo, Consolas, monospace; white-space: pre; tab-size: 4; letter-spacing: 0; }
.script-editor .code pre { position: absolute; top: 0; left: 0; min-width: 100%; pointer-events: none; }
.script-editor .code textarea { position: relative; display: block; min-width: 100%; resize: none; overflow: hidden; color: transparent; caret-color: var(--ink); background: transparent; }
.script-editor .code textarea::selection { background: rgba(0, 114, 178, .3); color: transparent; }
.script-editor .kw { color: #0b5394; font-weight: 600; } .script-editor .str { color: #1b6e43; } .script-editor .num { color: #8e2a80; }
.script-editor .com { color: var(--muted); font-style: italic; } .script-editor .ctx { color: #8a4b00; }
.script-editor .err { text-decoration: underline wavy var(--bad); text-decoration-skip-ink: none; background: var(--bad-bg); }
.script-editor .script-error { color: var(--bad); margin: 6px 0 0; white-space: pre-wrap; }
@media (prefers-color-scheme: dark) { .script-editor .kw { color: #8cc4ff; } .script-editor .str { color: #7fd3a2; } .script-editor .num { color: #f0a6e4; } .script-editor .ctx { color: #ffc27a; } }
";

#[derive(Properties, PartialEq)]
pub struct ScriptEditorProps {
    pub edit: Rc<ScriptEdit>,
    /// Why the script stopped the run, once the cursor is at or past that step.
    pub fault: Option<Rc<String>>,
    pub lang: Lang,
    pub on: Callback<Action>,
}

#[function_component]
pub fn ScriptEditor(p: &ScriptEditorProps) -> Html {
    crate::probe::rendered("script-editor");
    let l = p.lang;
    let src = p.edit.source.as_str();
    let err = p.edit.error.as_deref();
    let at = err.filter(|e| e.line > 0).and_then(|e| offset(src, e.line, e.column));
    let oninput = super::maybe(&p.on, |e: InputEvent| {
        Some(Action::Script(ScriptAction::Edit(e.target_dyn_into::<HtmlTextAreaElement>()?.value())))
    });
    let onchange = super::maybe(&p.on, |e: Event| {
        Some(Action::Script(ScriptAction::Template(e.target_dyn_into::<HtmlSelectElement>()?.value())))
    });
    // A new error is scrolled into view (the text may be longer than the editor's box).
    let code = use_node_ref();
    {
        let code = code.clone();
        use_effect_with(p.edit.error.clone(), move |e| {
            let mark = code.cast::<web_sys::Element>().and_then(|c| c.query_selector(".err").ok().flatten());
            if let (Some(_), Some(mark)) = (e, mark) {
                mark.scroll_into_view_with_bool(false);
            }
        });
    }
    let lines = src.lines().count().max(1) + 1;
    let cols = src.lines().map(|s| s.chars().count()).max().unwrap_or(0) + 2;
    let message = |e: &Placed| match e.line {
        0 => k::UI_SCRIPT_NOT_RUN.format(l, &[&e.message]),
        line => k::UI_SCRIPT_ERROR_AT.format(l, &[&line, &e.column, &e.message]),
    };
    html! {
        <section class="panel script-editor" aria-label={tr(l, k::UI_SCRIPT_YOUR_ALGORITHM)} data-testid="script-editor">
            <style>{ CSS }</style>
            <h2>{ tr(l, k::UI_SCRIPT_YOUR_ALGORITHM) }</h2>
            <div class="script-tools">
                <label>{ tr(l, k::UI_SCRIPT_START_FROM) }
                    <select {onchange} data-testid="script-template">
                        { for templates().map(|t| html! {
                            <option value={t} selected={p.edit.template == t}>{ template_title(t, l) }</option>
                        }) }
                    </select>
                </label>
                <button class="primary" data-testid="script-run"
                        onclick={p.on.reform(|_| Action::Script(ScriptAction::Run))}>{ tr(l, k::UI_RUN) }</button>
                <button data-testid="script-close" onclick={p.on.reform(|_| Action::Script(ScriptAction::Close))}>{ tr(l, k::UI_CLOSE) }</button>
            </div>
            <div class="code" ref={code}>
                <pre aria-hidden="true">{ highlighted(src, at) }{ "\n" }</pre>
                <textarea value={src.to_string()} {oninput} spellcheck="false" wrap="off" autocapitalize="off"
                          rows={lines.to_string()} cols={cols.to_string()} aria-label={tr(l, k::UI_SCRIPT_SOURCE)}
                          aria-invalid={err.is_some().to_string()} data-testid="script-source" />
            </div>
            { for err.map(|e| html! { <p class="script-error" role="alert" data-testid="script-error">{ message(e) }</p> }) }
            { for p.fault.as_deref().map(|f| html! {
                <p class="script-error" role="alert" data-testid="script-fault">{ k::UI_SCRIPT_STOPPED_THE_RUN.format(l, &[f]) }</p>
            }) }
            <p class="hint">{ tr(l, k::UI_SCRIPT_HINT) }</p>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tokens_cover_the_script_and_name_its_parts() {
        let src = "// rule\nfn on_start() { let x = \"a\\\"b\"; send(1, 'c'); /* n */ 42 }\n中文";
        let toks = tokens(src);
        let mut at = 0;
        for (_, r) in &toks {
            assert_eq!(r.start, at);
            at = r.end;
        }
        assert_eq!(at, src.len());
        let of = |s: &str| toks.iter().find(|(_, r)| &src[r.clone()] == s).map(|(t, _)| *t);
        assert_eq!(of("// rule"), Some(Tok::Comment));
        assert_eq!(of("fn"), Some(Tok::Keyword));
        assert_eq!(of("\"a\\\"b\""), Some(Tok::Str));
        assert_eq!(of("send"), Some(Tok::Context));
        assert_eq!(of("/* n */"), Some(Tok::Comment));
        assert_eq!(of("42"), Some(Tok::Number));
    }

    #[test]
    fn an_error_position_is_found_by_line_and_column() {
        let src = "let a = 1;\nlet bé = ;\n";
        assert_eq!(offset(src, 1, 1), Some(0));
        assert_eq!(&src[offset(src, 2, 10).unwrap()..], ";\n");
        // Past the line's end: its end; past the last line: none.
        assert_eq!(offset(src, 2, 99), Some(src.len() - 1));
        assert_eq!(offset(src, 9, 1), None);
    }
}
