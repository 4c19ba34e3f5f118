//! A figure strip: several chosen steps side by side as one picture (small multiples), each
//! with its caption (step, time, leaders) under it, one title above and one legend below for
//! them all. The steps are typed as a list ("3, 10, 25"), read in the page; the drawing of each
//! is the canvas's own, grabbed as the page shows that step, and the strip is composed in the
//! page's Web Worker (`export/job.rs`).

use super::compose::{line, rows, PAD, W};
use super::legend::{self, Legend};
use super::Look;

/// The most steps one strip takes.
pub const MAX_STEPS: usize = 6;
/// The space between two panels, in picture units.
const GAP: f64 = 60.0;
/// The title band above the panels.
const TOP: f64 = 130.0;

/// The steps asked for in `text` ("3, 10, 25" or "3 10 25"), in the order typed, without
/// repeats, each at most `head`, at most [`MAX_STEPS`]; an empty text asks for three steps
/// evenly spaced up to the cursor. `Err` names the part that is not a step number.
pub fn parse_steps(text: &str, cursor: u64, head: u64) -> Result<Vec<u64>, String> {
    let mut steps = Vec::new();
    for part in text.split(|c: char| c == ',' || c == '，' || c.is_whitespace()).filter(|p| !p.is_empty()) {
        let step: u64 = part.parse().map_err(|_| part.to_string())?;
        let step = step.min(head);
        if !steps.contains(&step) && steps.len() < MAX_STEPS {
            steps.push(step);
        }
    }
    if steps.is_empty() {
        steps = vec![cursor / 3, 2 * cursor / 3, cursor];
        steps.dedup();
    }
    Ok(steps)
}

/// The strip, `width` pixels wide: `panels` are each step's canvas `<svg>` (styles inline) with
/// its caption lines, `title` the lines above them all.
pub fn compose(panels: &[(String, Vec<String>)], title: &[String], legend: &Legend, look: &Look, width: u32) -> String {
    let n = panels.len().max(1) as f64;
    let vw = 2.0 * PAD + n * W + (n - 1.0) * GAP;
    let (ink, muted) = (&look.ink, &look.muted);
    let mut body = String::new();
    for (i, t) in title.iter().enumerate() {
        let (size, bold, fill) = if i == 0 { (48.0, true, ink) } else { (32.0, false, muted) };
        body.push_str(&line(PAD, 56.0 + i as f64 * 46.0, size, bold, fill, t));
    }
    let lines = panels.iter().map(|(_, c)| c.len()).max().unwrap_or(0) as f64;
    for (i, (canvas, caption)) in panels.iter().enumerate() {
        let x = PAD + i as f64 * (W + GAP);
        body.push_str(&format!(
            "<g transform=\"translate({x:.0} {TOP:.0})\"><rect width=\"{W}\" height=\"{W}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>{canvas}</g>",
            election_lab::plot::escape(muted)
        ));
        for (j, c) in caption.iter().enumerate() {
            let y = TOP + W + 50.0 + j as f64 * 44.0;
            body.push_str(&line(x + 10.0, y, 34.0, j == 0, ink, c));
        }
    }
    let size = 30.0;
    let items = legend.items(size, look);
    let (at, rows) = rows(&items, size, PAD, vw - 2.0 * PAD);
    let top = TOP + W + 40.0 + lines * 44.0 + 30.0;
    let row_h = size * 1.7;
    for (it, (x, row)) in items.iter().zip(at) {
        body.push_str(&legend::draw_item(it, x, top + row as f64 * row_h + row_h / 2.0, size, ink));
    }
    let vh = top + rows as f64 * row_h + PAD;
    let px_h = (width as f64 * vh / vw).round() as u32;
    let label = election_lab::plot::escape(&title.join(", "));
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{px_h}\" viewBox=\"0 0 {vw:.0} {vh:.0}\" font-family=\"{}\" role=\"img\" aria-label=\"{label}\">\
         <title>{label}</title><rect width=\"{vw:.0}\" height=\"{vh:.0}\" fill=\"{}\"/>{body}</svg>",
        election_lab::plot::escape(&look.font),
        election_lab::plot::escape(&look.background),
    )
}

/// File name: `election-lab-<preset or algorithm>-steps<A>-<B>-<C>.<ext>`.
pub fn file_name(which: &str, steps: &[u64], ext: &str) -> String {
    format!("election-lab-{which}-steps{}.{ext}", steps.iter().map(u64::to_string).collect::<Vec<_>>().join("-"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::legend::{legend, tests::first};
    use crate::export::tikz::{self, tests::pdflatex};
    use crate::i18n::Lang;
    use election_lab::Frame;

    #[test]
    fn steps_are_read_from_a_list() {
        assert_eq!(parse_steps("3, 10, 25", 40, 100), Ok(vec![3, 10, 25]));
        assert_eq!(parse_steps("25 3 3，10", 40, 100), Ok(vec![25, 3, 10]), "in the order typed, once");
        assert_eq!(parse_steps("5, 500", 40, 100), Ok(vec![5, 100]), "not past the head");
        assert_eq!(parse_steps("", 30, 100), Ok(vec![10, 20, 30]), "empty: up to the cursor");
        assert_eq!(parse_steps(" ", 0, 100), Ok(vec![0]));
        assert_eq!(parse_steps("1,2,3,4,5,6,7,8", 0, 100).unwrap().len(), MAX_STEPS);
        assert_eq!(parse_steps("3, ten", 0, 100), Err("ten".into()));
    }

    #[test]
    fn a_strip_of_three_bully_steps_as_svg_and_as_tikz_compiled_by_pdflatex() {
        let mut e = first("bully-heal", 3, 0);
        let last = e.cursor();
        let steps = [last / 3, 2 * last / 3, last];
        let alg = e.algorithm();
        let panels = tikz::panels(&mut e, Some("bully-heal"), &steps, Lang::En);
        assert_eq!(panels.iter().map(|p| p.frame.step).collect::<Vec<_>>(), steps);
        let frames: Vec<&Frame> = panels.iter().map(|p| &p.frame).collect();
        let l = legend(alg, &frames, false, Lang::En);
        let title = vec![alg.title.get(Lang::En).to_string(), "Bully: a partition heals".into()];
        // SVG: three panels side by side, each captioned, one legend.
        let svg = compose(
            &panels.iter().map(|p| ("<svg/>".to_string(), p.caption.clone())).collect::<Vec<_>>(),
            &title,
            &l,
            &crate::export::tests::look(),
            2400,
        );
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"2400\""));
        assert_eq!(svg.matches("<svg/>").count(), 3);
        for (s, x) in steps.iter().zip([PAD, PAD + W + GAP, PAD + 2.0 * (W + GAP)]) {
            assert!(svg.contains(&format!("<g transform=\"translate({x:.0} {TOP:.0})\">")));
            assert!(svg.contains(&format!(">step {s} · t = ")), "caption of step {s}");
        }
        for k in &l.kinds {
            assert_eq!(svg.matches(&format!("data-kind=\"{}\"", k.name)).count(), 1, "one legend for all: {}", k.name);
        }
        // TikZ: the same three panels, compiled.
        let doc = tikz::document(alg, &title, &panels, &l, true, Lang::En);
        for (i, s) in steps.iter().enumerate() {
            assert!(doc.contains(&format!("\\begin{{scope}}[shift={{({},0)}}]", i * 1100)));
            assert!(doc.contains(&format!("{{step {s} $\\cdot$ t = ")), "caption of step {s}");
        }
        pdflatex("strip", &doc);
        assert_eq!(file_name("bully-heal", &steps, "tex"), tikz::file_name(alg, Some("bully-heal"), &steps));
    }
}
