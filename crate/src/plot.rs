//! Plots as standalone SVG text: lines with a spread band, cumulative distributions, and
//! horizontal bars. No dependency and no clock, so the command line (the guide's figures) and
//! the browser draw the same picture from the same numbers. A plot is self-contained (no ids,
//! no stylesheet), so several can sit in one page.

use std::fmt::Write;

/// What kind of plot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartKind {
    /// One line per series over x, with an optional band (min–max) around it.
    Lines,
    /// A cumulative distribution per series: points are (value, fraction of runs).
    Cdf,
    /// One horizontal bar per series: `points[0]` is (value, runs).
    Bars,
}

/// One series: its points, and for lines a band `(x, low, high)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    /// Index into the palette.
    pub color: usize,
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
    pub band: Vec<(f64, f64, f64)>,
}

/// A labelled point drawn on top (a figure reported elsewhere).
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    pub x: f64,
    pub y: f64,
    pub label: String,
    /// The series colour it belongs with, if any.
    pub color: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub kind: ChartKind,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    pub y_log: bool,
    pub x_min: Option<f64>,
    pub x_max: Option<f64>,
    /// Values are rates (0–1), written as percentages.
    pub percent: bool,
    pub series: Vec<Series>,
    pub marks: Vec<Mark>,
}

/// Okabe–Ito colours, distinguishable with the common colour-vision deficiencies.
pub const PALETTE: &[&str] = &["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C6D31"];

pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Text for XML content and (double-quoted) attribute values: the one escaper of the SVG the lab writes (charts
/// here, the page's pictures).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// A number for a tick or a value label: whole numbers plainly, others with up to 2 decimals.
pub fn num(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    /// Pixel positions of `lo` and `hi`.
    a: f64,
    b: f64,
}

impl Axis {
    fn new(lo: f64, hi: f64, log: bool, a: f64, b: f64) -> Axis {
        let (lo, hi) = if log {
            let lo = if lo > 0.0 { lo } else { 1.0 };
            (lo, if hi > lo { hi } else { lo * 10.0 })
        } else if hi > lo {
            (lo, hi)
        } else {
            (lo - 1.0, hi + 1.0)
        };
        Axis { lo, hi, log, a, b }
    }
    fn px(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.max(self.lo * 1e-3).ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        self.a + t.clamp(0.0, 1.0) * (self.b - self.a)
    }
    fn contains(&self, v: f64) -> bool {
        v >= self.lo - 1e-9 && v <= self.hi + 1e-9
    }
    fn ticks(&self) -> Vec<f64> {
        if self.log {
            // Powers of ten within the axis; with fewer than four, also their doubles and fives.
            let inside = |t: &f64| *t >= self.lo * 0.9999 && *t <= self.hi * 1.0001;
            let first = 10f64.powf(self.lo.log10().floor());
            let decades: Vec<f64> =
                (0..40).map(|k| first * 10f64.powi(k)).take_while(|&d| d <= self.hi * 1.0001).collect();
            if decades.iter().filter(|d| inside(d)).count() > 3 {
                return decades.into_iter().filter(inside).collect();
            }
            return decades.iter().flat_map(|&d| [d, 2.0 * d, 5.0 * d]).filter(inside).collect();
        }
        let raw = (self.hi - self.lo) / 6.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * mag).find(|&s| s >= raw).unwrap_or(10.0 * mag);
        let mut t = (self.lo / step).ceil() * step;
        let mut out = Vec::new();
        while t <= self.hi + step * 1e-9 {
            out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
            t += step;
        }
        out
    }
}

const W: f64 = 820.0;
const FONT: &str = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', 'Noto Sans CJK SC', sans-serif";

/// The title in lines of at most `max` units (a CJK character counts two), broken at spaces,
/// or anywhere between CJK characters.
fn wrap(text: &str, max: usize) -> Vec<String> {
    let wide = |c: char| c as u32 >= 0x2e80;
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut width = 0;
    // Where the current line may be broken (a byte index).
    let mut cut: Option<usize> = None;
    for c in text.chars() {
        let w = if wide(c) { 2 } else { 1 };
        if width + w > max {
            let at = cut.filter(|&at| at > 0).unwrap_or(line.len());
            let rest = line.split_off(at);
            lines.push(line.trim_end().to_string());
            line = rest.trim_start().to_string();
            width = line.chars().map(|c| if wide(c) { 2 } else { 1 }).sum();
            cut = None;
        }
        if c == ' ' || wide(c) {
            cut = Some(line.len() + if c == ' ' { 0 } else { c.len_utf8() });
        }
        line.push(c);
        width += w;
    }
    if !line.trim().is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Opens the document and writes the title lines.
fn open(out: &mut String, h: f64, title: &[String]) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {h}\" width=\"{W}\" height=\"{h}\" font-family=\"{FONT}\" font-size=\"12\" fill=\"#222\">\
         <rect width=\"{W}\" height=\"{h}\" fill=\"#fff\"/>"
    );
    for (i, t) in title.iter().enumerate() {
        let _ = write!(
            out,
            "<text x=\"16\" y=\"{}\" font-size=\"15\" font-weight=\"600\">{}</text>",
            26 + 20 * i,
            escape(t)
        );
    }
}

/// The chart as an SVG document.
pub fn svg(c: &Chart) -> String {
    match c.kind {
        ChartKind::Bars => bars(c),
        _ => lines(c),
    }
}

fn value_text(c: &Chart, v: f64) -> String {
    if c.percent {
        format!("{} %", num((v * 1000.0).round() / 10.0))
    } else {
        num(v)
    }
}

fn bars(c: &Chart) -> String {
    let title = wrap(&c.title, 86);
    let (left, right, top, row) = (300.0, W - 130.0, 28.0 + 20.0 * title.len() as f64, 26.0);
    let h = top + row * c.series.len() as f64 + 56.0;
    let max = c.series.iter().filter_map(|s| s.points.first()).map(|p| p.0).fold(0.0, f64::max);
    let hi = if c.percent { 1.0 } else { max.max(1e-9) };
    let x = Axis::new(0.0, hi, false, left, right);
    let mut out = String::new();
    open(&mut out, h, &title);
    let bottom = top + row * c.series.len() as f64;
    for t in x.ticks() {
        let px = x.px(t);
        let _ = write!(out, "<line x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{bottom}\" stroke=\"#e5e5e5\"/><text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{}</text>", bottom + 16.0, value_text(c, t));
    }
    for (i, s) in c.series.iter().enumerate() {
        let Some(&(v, runs)) = s.points.first() else { continue };
        let y = top + row * i as f64;
        let wpx = x.px(v) - left;
        let _ = write!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><rect x=\"{left}\" y=\"{:.1}\" width=\"{wpx:.1}\" height=\"{:.1}\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#333\">{} <tspan fill=\"#888\">(n={})</tspan></text>",
            left - 8.0,
            y + row * 0.62,
            escape(&s.label),
            y + 4.0,
            row - 8.0,
            color(s.color),
            left + wpx + 6.0,
            y + row * 0.62,
            value_text(c, v),
            num(runs)
        );
    }
    let _ = write!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text></svg>",
        (left + right) / 2.0,
        h - 12.0,
        escape(&c.x_label)
    );
    out
}

fn lines(c: &Chart) -> String {
    let title = wrap(&c.title, 86);
    let extra = 20.0 * (title.len() - 1) as f64;
    let (left, top, right, bottom) = (78.0, 48.0 + extra, W - 250.0, 420.0 + extra);
    let h = bottom + 56.0;
    let cdf = c.kind == ChartKind::Cdf;
    let pts = || c.series.iter().flat_map(|s| s.points.iter().copied());
    let xs = || pts().map(|p| p.0).chain(c.series.iter().flat_map(|s| s.band.iter().map(|b| b.0)));
    let x_lo = c.x_min.unwrap_or_else(|| xs().filter(|&v| !c.x_log || v > 0.0).fold(f64::INFINITY, f64::min));
    let x_hi = c.x_max.unwrap_or_else(|| xs().fold(f64::NEG_INFINITY, f64::max));
    let (x_lo, x_hi) = if x_lo.is_finite() && x_hi.is_finite() { (x_lo, x_hi) } else { (0.0, 1.0) };
    let x = Axis::new(x_lo, x_hi, c.x_log, left, right);
    let ys = || pts().map(|p| p.1).chain(c.series.iter().flat_map(|s| s.band.iter().flat_map(|b| [b.1, b.2])));
    let y = if cdf {
        Axis::new(0.0, 1.0, false, bottom, top)
    } else if c.y_log {
        // A little room above and below the data.
        Axis::new(
            ys().filter(|&v| v > 0.0).fold(f64::INFINITY, f64::min) / 1.2,
            ys().fold(1.0, f64::max) * 1.2,
            true,
            bottom,
            top,
        )
    } else {
        Axis::new(0.0, ys().fold(0.0, f64::max) * 1.05, false, bottom, top)
    };
    let mut out = String::new();
    open(&mut out, h, &title);
    // Grid and ticks.
    for t in x.ticks() {
        let px = x.px(t);
        let _ = write!(out, "<line x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{bottom}\" stroke=\"#e5e5e5\"/><text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{}</text>", bottom + 16.0, num(t));
    }
    for t in y.ticks() {
        let py = y.px(t);
        let label = if cdf { format!("{} %", num(t * 100.0)) } else { num(t) };
        let _ = write!(out, "<line x1=\"{left}\" y1=\"{py:.1}\" x2=\"{right}\" y2=\"{py:.1}\" stroke=\"#e5e5e5\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#555\">{label}</text>", left - 6.0, py + 4.0);
    }
    let _ = write!(
        out,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#999\"/>",
        right - left,
        bottom - top
    );
    // Bands, then lines.
    for s in &c.series {
        let band: Vec<_> = s.band.iter().filter(|b| x.contains(b.0)).collect();
        if band.len() > 1 {
            let mut d = String::new();
            for (k, b) in band.iter().enumerate() {
                let _ = write!(d, "{}{:.1},{:.1}", if k == 0 { "M" } else { "L" }, x.px(b.0), y.px(b.2));
            }
            for b in band.iter().rev() {
                let _ = write!(d, "L{:.1},{:.1}", x.px(b.0), y.px(b.1));
            }
            let _ = write!(out, "<path d=\"{d}Z\" fill=\"{}\" fill-opacity=\"0.18\"/>", color(s.color));
        }
    }
    for s in &c.series {
        let mut d = String::new();
        if cdf {
            if let Some(&(x0, _)) = s.points.first() {
                let _ = write!(d, "M{:.1},{:.1}", x.px(x0), y.px(0.0));
                for &(vx, vy) in &s.points {
                    let _ = write!(d, "H{:.1}V{:.1}", x.px(vx), y.px(vy));
                }
                let _ = write!(d, "H{right}");
            }
        } else {
            for (k, &(vx, vy)) in s.points.iter().filter(|p| x.contains(p.0)).enumerate() {
                let _ = write!(d, "{}{:.1},{:.1}", if k == 0 { "M" } else { "L" }, x.px(vx), y.px(vy));
            }
        }
        if !d.is_empty() {
            let dash = if s.dashed { " stroke-dasharray=\"6 4\"" } else { "" };
            let _ = write!(
                out,
                "<path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{dash}/>",
                color(s.color),
                if s.dashed { 1.5 } else { 2.0 }
            );
        }
    }
    for m in &c.marks {
        let (px, py) = (x.px(m.x), y.px(m.y));
        let stroke = m.color.map_or("#222", color);
        let anchor = if px > (left + right) / 2.0 { ("end", -8.0) } else { ("start", 8.0) };
        // Near the top edge the label goes below the point, clear of the title.
        let dy = if py - top < 18.0 { 17.0 } else { -7.0 };
        let _ = write!(
            out,
            "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"5\" fill=\"#fff\" stroke=\"{stroke}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\" font-size=\"11\" fill=\"{stroke}\">{}</text>",
            px + anchor.1,
            py + dy,
            anchor.0,
            escape(&m.label)
        );
    }
    // Axis labels and legend.
    let _ = write!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text><text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        (left + right) / 2.0,
        bottom + 40.0,
        escape(&c.x_label),
        (top + bottom) / 2.0,
        escape(&c.y_label)
    );
    for (i, s) in c.series.iter().enumerate() {
        let ly = top + 8.0 + 20.0 * i as f64;
        let dash = if s.dashed { " stroke-dasharray=\"6 4\"" } else { "" };
        let _ = write!(
            out,
            "<line x1=\"{:.1}\" y1=\"{ly:.1}\" x2=\"{:.1}\" y2=\"{ly:.1}\" stroke=\"{}\" stroke-width=\"2\"{dash}/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            right + 16.0,
            right + 40.0,
            color(s.color),
            right + 46.0,
            ly + 4.0,
            escape(&s.label)
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_wrap_at_spaces_and_between_cjk_characters() {
        assert_eq!(wrap("one two three", 8), vec!["one two", "three"]);
        assert_eq!(wrap("short", 96), vec!["short"]);
        let zh = wrap("领导者崩溃后无领导者的时间", 10);
        assert!(zh.iter().all(|l| l.chars().count() <= 5), "{zh:?}");
        assert_eq!(zh.concat(), "领导者崩溃后无领导者的时间");
        assert_eq!(wrap("abcdefghij", 4).concat(), "abcdefghij");
    }

    #[test]
    fn ticks_are_round_numbers_within_the_axis() {
        let a = Axis::new(0.0, 600.0, false, 0.0, 100.0);
        assert_eq!(a.ticks(), vec![0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0]);
        let l = Axis::new(100.0, 100000.0, true, 0.0, 100.0);
        assert_eq!(l.ticks(), vec![100.0, 1000.0, 10000.0, 100000.0]);
        assert_eq!(Axis::new(3.0, 40.0, true, 0.0, 100.0).ticks(), vec![5.0, 10.0, 20.0]);
        assert_eq!(Axis::new(16.0, 256.0, true, 0.0, 100.0).ticks(), vec![20.0, 50.0, 100.0, 200.0]);
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1e4), "10000");
    }

    #[test]
    fn texts_are_escaped() {
        let c = Chart {
            kind: ChartKind::Bars,
            title: "a < b & c".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_log: false,
            y_log: false,
            x_min: None,
            x_max: None,
            percent: true,
            series: vec![Series {
                label: "\"q\"".into(),
                color: 0,
                dashed: false,
                points: vec![(0.25, 200.0)],
                band: vec![],
            }],
            marks: vec![],
        };
        let s = svg(&c);
        assert!(s.contains("a &lt; b &amp; c") && s.contains("&quot;q&quot;") && s.contains("25 %"), "{s}");
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
    }
}
