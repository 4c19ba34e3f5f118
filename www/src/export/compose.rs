//! What a picture says and how it is laid out: the caption (algorithm, preset, step, time,
//! leaders), the slide and tall shapes around the canvas's markup, the file names. It runs in
//! the page's Web Worker (`export/job.rs`), not in the page: only the figure's job and its file
//! cross over.

use super::legend::{self, greyscale, Legend};
use super::{Format, Look, Scheme, Shape};
use crate::i18n::{k, tr, Lang};
use election_lab::plot::escape;
use election_lab::{Algorithm, Frame};

/// Side of the drawing in picture units (the canvas's viewBox is 1000 × 1000).
pub(crate) const W: f64 = 1000.0;
/// Width of a slide in picture units: 16:9 with the drawing's height.
const SLIDE_W: f64 = 1778.0;
/// The tall shape's caption band, legend row height and margin.
const CAPTION: f64 = 100.0;
const ROW: f64 = 36.0;
pub(crate) const PAD: f64 = 28.0;

/// The caption's lines: the algorithm, the preset (if any), step and time, the leaders.
pub fn caption(alg: &Algorithm, preset: Option<&str>, frame: &Frame, lang: Lang) -> Vec<String> {
    let mut lines = vec![alg.title.get(lang).to_string()];
    if let Some(p) = preset.and_then(election_lab::presets::find) {
        lines.push(p.title.get(lang).to_string());
    }
    lines.push(k::ui_caption_step(frame.step, frame.time).render(lang));
    lines.push(match frame.leaders.as_slice() {
        [] => tr(lang, k::UI_CAPTION_NO_LEADER).to_string(),
        [one] => k::ui_caption_leader(*one).render(lang),
        many => format!("{} {}", tr(lang, k::UI_CAPTION_LEADERS), crate::nodes_text(many)),
    });
    lines
}

/// Rough advance of `s` in a sans-serif of `size` units.
fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

/// `text` cut at spaces into lines of at most `width` units at `size`.
fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(l) if text_width(&format!("{l} {word}"), size) <= width => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// One line of caption text.
pub(crate) fn line(x: f64, y: f64, size: f64, bold: bool, fill: &str, text: &str) -> String {
    let weight = if bold { " font-weight=\"700\"" } else { "" };
    format!(
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\"{weight} fill=\"{}\">{}</text>",
        escape(fill),
        escape(text)
    )
}

/// Items in rows across `width` from `x0`, at font `size`: (x, row) of each, and the number of
/// rows.
pub(crate) fn rows(items: &[legend::Item], size: f64, x0: f64, width: f64) -> (Vec<(f64, usize)>, usize) {
    let (mut x, mut row, mut at) = (x0, 0, Vec::new());
    for it in items {
        let w = legend::item_width(it, size);
        if x > x0 && x + w > x0 + width {
            x = x0;
            row += 1;
        }
        at.push((x, row));
        x += w + size * 1.5;
    }
    let n = if at.is_empty() { 0 } else { row + 1 };
    (at, n)
}

/// The whole picture, `width` pixels wide: `canvas` is the serialised canvas `<svg>` (styles
/// inline), `caption` the lines of [`caption`], `legend` what the drawing shows (node looks,
/// kinds in flight, crashed nodes, doomed messages).
pub fn compose(canvas: &str, caption: &[String], legend: &Legend, look: &Look, width: u32, shape: Shape) -> String {
    let (title, rest) = caption.split_first().map_or(("", &[][..]), |(t, r)| (t.as_str(), r));
    let (ink, muted) = (&look.ink, &look.muted);
    let mut body = String::new();
    let (vw, vh, at) = match shape {
        Shape::Slide => {
            // A column beside the drawing: title, caption lines, then the legend as a list.
            let (x, right) = (W + 30.0, SLIDE_W - 40.0);
            let mut y = 110.0;
            for l in wrap(title, 46.0, right - x) {
                body.push_str(&line(x, y, 46.0, true, ink, &l));
                y += 56.0;
            }
            y += 10.0;
            for (i, text) in rest.iter().enumerate() {
                // The preset's name is muted; step, time and leaders are what to read.
                let fill = if i == 0 && rest.len() > 2 { muted } else { ink };
                for l in wrap(text, 30.0, right - x) {
                    body.push_str(&line(x, y, 30.0, false, fill, &l));
                    y += 42.0;
                }
            }
            y += 40.0;
            // A long legend gets smaller so that it stays on the slide.
            let n = legend.items(28.0, look).len().max(1) as f64;
            let size = (28.0 * ((W - 20.0 - y) / (n * 46.0)).min(1.0)).max(12.0);
            for it in legend.items(size, look) {
                body.push_str(&legend::draw_item(&it, x, y, size, ink));
                y += size * 46.0 / 28.0;
            }
            (SLIDE_W, W, (0.0, 0.0))
        }
        Shape::Tall => {
            body.push_str(&line(PAD, 46.0, 32.0, true, ink, title));
            body.push_str(&line(PAD, 82.0, 21.0, false, muted, &rest.join(" · ")));
            let items = legend.items(20.0, look);
            let (at, n) = rows(&items, 20.0, PAD, W - 2.0 * PAD);
            for (it, (x, row)) in items.iter().zip(at) {
                body.push_str(&legend::draw_item(it, x, CAPTION + W + 12.0 + row as f64 * ROW + ROW / 2.0, 20.0, ink));
            }
            let legend_h = if n == 0 { 0.0 } else { n as f64 * ROW + 24.0 };
            (W, CAPTION + W + legend_h, (0.0, CAPTION))
        }
    };
    let px_h = (width as f64 * vh / vw).round() as u32;
    let label = escape(&caption.join(", "));
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{px_h}\" viewBox=\"0 0 {vw} {vh}\" font-family=\"{}\" role=\"img\" aria-label=\"{label}\">\
         <title>{label}</title><rect width=\"{vw}\" height=\"{vh}\" fill=\"{}\"/><g transform=\"translate({} {})\">{canvas}</g>{body}</svg>",
        escape(&look.font),
        escape(&look.background),
        at.0,
        at.1,
    )
}

/// File name: `election-lab-<preset or algorithm>-step<N>.<ext>`.
pub fn file_name(alg: &Algorithm, preset: Option<&str>, step: u64, format: Format) -> String {
    let ext = match format {
        Format::Svg => "svg",
        Format::Png => "png",
        Format::Tikz => "tex",
    };
    format!("election-lab-{}-step{step}.{ext}", preset.unwrap_or(alg.id))
}

/// The picture in the colours `scheme` asks for: in greys for [`Scheme::Grey`].
pub fn in_scheme(svg: String, scheme: Scheme) -> String {
    if scheme == Scheme::Grey {
        greyscale(&svg)
    } else {
        svg
    }
}

/// The `height` attribute of the picture's root element.
pub(crate) fn svg_height(svg: &str) -> Option<u32> {
    let rest = &svg[svg.find(" height=\"")? + 9..];
    rest[..rest.find('"')?].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::export::legend::{legend, Entry};
    use crate::export::tests::look;
    use election_lab::{presets, Engine};

    const DOOMED: &str = "will not arrive";

    #[test]
    fn the_legend_lists_the_kinds_in_flight_in_kind_order() {
        let mut e = Engine::new(presets::find("ring-worst").unwrap().scenario()).unwrap();
        e.seek(3);
        let frame = e.frame();
        let Legend { kinds: entries, doomed, .. } = legend(e.algorithm(), &[&frame], false, Lang::En);
        assert!(!entries.is_empty());
        for en in &entries {
            assert!(frame.messages.iter().any(|m| m.kind == en.name));
            assert!(en.colour.starts_with('#'));
        }
        let order: Vec<usize> =
            entries.iter().map(|en| e.algorithm().kinds.iter().position(|k| k.name == en.name).unwrap()).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]));
        assert!(doomed.is_none());
        let at0 = Engine::new(presets::find("split-brain-bully").unwrap().scenario()).unwrap().frame();
        let l = legend(e.algorithm(), &[&at0], false, Lang::En);
        assert!(l.kinds.is_empty() && l.doomed.is_none());
    }

    #[test]
    fn the_caption_names_algorithm_preset_step_time_and_leaders() {
        let mut e = Engine::new(presets::find("split-brain-bully").unwrap().scenario()).unwrap();
        e.seek(4);
        let f = e.frame();
        let lines = caption(e.algorithm(), Some("split-brain-bully"), &f, Lang::En);
        assert_eq!(
            lines,
            [
                e.algorithm().title.get(Lang::En).to_string(),
                "Split brain under Bully".into(),
                format!("step 4 · t = {}", f.time),
                "leader N5".into()
            ]
        );
        assert_eq!(caption(e.algorithm(), None, &f, Lang::En).len(), 3);
        // In Chinese, every line is the Chinese one (the preset's title, the words around the
        // numbers), with the same numbers.
        let zh = caption(e.algorithm(), Some("split-brain-bully"), &f, Lang::Zh);
        assert_eq!(zh[1], presets::find("split-brain-bully").unwrap().title.get(Lang::Zh));
        assert_ne!(zh[1], lines[1]);
        assert!(zh[2].contains(&f.time.to_string()) && zh[2] != lines[2]);
        assert!(zh[3].contains("N5") && zh[3] != lines[3]);
    }

    fn lines() -> Vec<String> {
        vec!["Bully & co".into(), "A preset".into(), "step 4 · t = 3".into(), "leaders N2, N5".into()]
    }

    fn kind(name: &'static str, short: &'static str, shape: crate::palette::Shape) -> Entry {
        Entry { colour: "#E69F00", short, name, shape, dash: Some("10 6") }
    }

    fn two() -> Legend {
        use crate::palette::Shape as S;
        Legend {
            kinds: vec![kind("ELECTION", "E", S::Circle), kind("OK", "OK", S::Square)],
            doomed: Some(DOOMED.into()),
            ..Legend::default()
        }
    }

    #[test]
    fn a_slide_is_16_by_9_with_the_caption_and_legend_beside_the_drawing() {
        let s = compose(
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>N1</text></svg>",
            &lines(),
            &two(),
            &look(),
            1920,
            Shape::Slide,
        );
        assert!(
            s.starts_with(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1920\" height=\"1080\" viewBox=\"0 0 1778 1000\""
            ),
            "{s}"
        );
        assert!(s.ends_with("</svg>"));
        assert!(s.contains("Bully &amp; co"));
        assert!(s.contains("font-family=\"system-ui, &quot;Segoe UI&quot;\""));
        assert!(s.contains("<g transform=\"translate(0 0)\"><svg"));
        assert!(s.contains("<tspan font-weight=\"700\">E</tspan> ELECTION"));
        assert!(s.contains(DOOMED));
        assert_eq!(
            svg_height(&compose("<svg/>", &lines(), &Legend::default(), &look(), 1280, Shape::Slide)),
            Some(720)
        );
        assert_eq!(
            svg_height(&compose("<svg/>", &lines(), &Legend::default(), &look(), 2560, Shape::Slide)),
            Some(1440)
        );
    }

    #[test]
    fn a_tall_picture_has_the_caption_above_and_the_legend_below() {
        let s = compose("<svg/>", &lines(), &two(), &look(), 1920, Shape::Tall);
        assert!(s.contains("<g transform=\"translate(0 100)\"><svg/>"));
        assert!(s.contains(">A preset · step 4 · t = 3 · leaders N2, N5</text>"));
        // One row of legend: 100 + 1000 + 36 + 24 units high, at 1.92 px a unit.
        assert_eq!(svg_height(&s), Some((1.92f64 * 1160.0).round() as u32));
        assert_eq!(
            svg_height(&compose("<svg/>", &lines(), &Legend::default(), &look(), 1280, Shape::Tall)),
            Some(1408)
        );
    }

    #[test]
    fn long_text_wraps_and_a_long_legend_takes_rows() {
        assert_eq!(
            wrap("Chang-Roberts: worst case, N6 starts", 30.0, 400.0),
            ["Chang-Roberts: worst", "case, N6 starts"]
        );
        assert_eq!(wrap("short", 30.0, 400.0), ["short"]);
        let many = Legend {
            kinds: (0..12).map(|_| kind("REQUEST_VOTE_REPLY", "RV", crate::palette::Shape::Star)).collect(),
            doomed: Some(DOOMED.into()),
            ..Legend::default()
        };
        let (at, n) = rows(&many.items(20.0, &look()), 20.0, PAD, W - 2.0 * PAD);
        assert!(n > 1);
        assert_eq!(at.len(), 13);
        assert!(at.iter().all(|&(x, _)| (PAD..W - PAD).contains(&x)));
    }

    #[test]
    fn file_names_say_what_and_when() {
        let alg = election_lab::registry::all()[0];
        assert_eq!(file_name(alg, Some("ring-worst"), 12, Format::Png), "election-lab-ring-worst-step12.png");
        assert_eq!(file_name(alg, None, 0, Format::Svg), format!("election-lab-{}-step0.svg", alg.id));
    }
}
