//! The space-time diagram as TikZ, for LaTeX notes: a lifeline per node and the messages of the
//! last [`SPAN`] ticks up to the step shown, in the same styles (and preamble) as the figures of
//! [`super::tikz`], compiled by the same plain `pdflatex`.

use super::legend::{Entry, Legend};
use super::tikz::{begin, cjk, finish, legend_rows, num};
use crate::i18n::Lang;
use election_lab::Engine;
use std::fmt::Write;

/// The ticks a space-time figure covers, ending at the step shown.
pub const SPAN: u64 = 30;

/// The space-time diagram of the last [`SPAN`] ticks up to the step `engine` is at, as a
/// standalone document: a lifeline per node (dashed while it is down at the end), each message
/// delivered or dropped in that time an arrow from its sending to its arrival (dropped ones end
/// in a cross) with its kind's dash, the other events as dots, and the legend of the kinds.
pub fn space_time(engine: &Engine, title: &[String], grey: bool, lang: Lang) -> String {
    let alg = engine.algorithm();
    let frame = engine.frame();
    let (now, n) = (frame.time, frame.nodes.len().max(1));
    let t0 = now.saturating_sub(SPAN);
    let col = |i: usize| 1000.0 * (i as f64 + 0.5) / n as f64;
    let row = |t: u64| 60.0 + 800.0 * (t - t0) as f64 / SPAN as f64;
    let index = |id: u32| frame.nodes.iter().position(|nd| nd.id == id);
    let mut body = String::new();
    for (i, nd) in frame.nodes.iter().enumerate() {
        let style = if nd.up { "black!50" } else { "black!35, dash pattern=on 2pt off 2pt" };
        let _ = writeln!(body, "\\draw[{style}] ({},60) -- ({},870);", num(col(i)), num(col(i)));
        let _ = writeln!(
            body,
            "\\node[el label, font=\\sffamily\\bfseries\\small] at ({},25) {{N{}}};",
            num(col(i)),
            nd.id
        );
    }
    let mut kinds: Vec<&'static str> = Vec::new();
    let mut step = engine.first_step_at(t0);
    while step <= engine.cursor() {
        let Some(info) = engine.step_info_in(step, lang) else { break };
        step += 1;
        let Some(to) = index(info.node) else { continue };
        match (info.peer.and_then(index), info.sent, info.kind) {
            (Some(from), Some(sent), Some(kind)) if sent >= t0 => {
                let i = alg.kinds.iter().position(|k| k.name == kind).unwrap_or(0);
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
                let (a, b) = ((col(from), row(sent)), (col(to), row(info.time)));
                if info.event == "drop" {
                    let _ = writeln!(
                        body,
                        "\\draw[el kind {i}] ({},{}) -- ({},{}) node[text=elBad, font=\\bfseries] {{$\\times$}};",
                        num(a.0),
                        num(a.1),
                        num(b.0),
                        num(b.1)
                    );
                } else {
                    let _ = writeln!(
                        body,
                        "\\draw[el kind {i}, -{{Stealth[length=5pt]}}] ({},{}) -- ({},{});",
                        num(a.0),
                        num(a.1),
                        num(b.0),
                        num(b.1)
                    );
                }
            }
            _ => {
                let _ = writeln!(body, "\\fill[black!70] ({},{}) circle[radius=7];", num(col(to)), num(row(info.time)));
            }
        }
    }
    let _ = writeln!(
        body,
        "\\draw[elBad, line width=0.8pt] (-20,{y}) -- (1020,{y}) node[right, el label] {{t = {now}}};",
        y = num(row(now))
    );
    let _ = writeln!(body, "\\node[el label, anchor=east] at (-20,60) {{t = {t0}}};");
    let legend = Legend {
        kinds: alg.kinds.iter().filter(|k| kinds.contains(&k.name)).map(|k| Entry::of(alg, k)).collect(),
        ..Legend::default()
    };
    let chinese = title.iter().any(|t| cjk(t));
    let mut s = begin(alg, title, grey, chinese);
    s.push_str(&body);
    legend_rows(&mut s, alg, &legend, 940.0, 1000.0);
    finish(&mut s, chinese);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::legend::tests::first;
    use crate::export::tikz::tests::pdflatex;
    use crate::export::tikz::tex;

    #[test]
    fn the_space_time_diagram_as_tikz_compiles_with_pdflatex() {
        let e = first("bully-heal", 3, 0);
        let alg = e.algorithm();
        let doc = space_time(&e, &["Bully: space-time".into()], false, Lang::En);
        for n in &e.frame().nodes {
            assert!(doc.contains(&format!("{{N{}}};", n.id)), "the lifeline of N{}", n.id);
        }
        assert!(doc.contains(", -{Stealth[length=5pt]}]"), "messages as arrows");
        assert!(doc.contains(&format!("{{t = {}}}", e.frame().time)), "the time of the step");
        assert!(
            alg.kinds.iter().any(|k| doc.contains(&format!("{{\\textbf{{{}}} {}}}", tex(k.short), tex(k.name)))),
            "the legend"
        );
        pdflatex("spacetime", &doc);
    }
}
