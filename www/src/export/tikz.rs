//! A step (or a strip of steps) as TikZ, for LaTeX notes: a standalone document that a plain
//! `pdflatex` compiles (Debian's `texlive-latex-base` and `texlive-pictures`). It is drawn from
//! the engine's frame, not from the page's markup: nodes at their canvas positions with their
//! labels, each look in a style that survives greyscale (fill, line width, dash, double ring),
//! messages in flight as arrows with their kind's dash and their dot's shape, doomed messages
//! ending in a cross, crashed nodes crossed out, partition lines, a caption under each panel and
//! one legend. Colours are optional: `grey` defines every colour as a grey, and nothing is told
//! apart by colour alone.

use super::legend::Legend;
use crate::components::canvas_parts::{doom_end, edge, lane};
use crate::components::labels::node_texts;
use crate::geometry::{clip_to_box, Line, Pt};
use crate::i18n::Lang;
use crate::meta::{kind_colour, kind_shape};
use crate::palette::Shape;
use election_lab::meta::Look as NodeLook;
use election_lab::{layout, Algorithm, Engine, Frame};
use std::fmt::Write;

/// One panel: a step's frame, where its nodes stand, its partition lines and its caption.
#[derive(Clone, Debug)]
pub struct Panel {
    pub frame: Frame,
    pub positions: Vec<Pt>,
    pub lines: Vec<Line>,
    pub caption: Vec<String>,
    /// The scenario's network links (`topology`), as positions in scenario order.
    pub links: Vec<(u32, u32)>,
}

/// The panels of `steps` of `engine`'s run (which is left at the last of them), each captioned
/// with its step, time and leaders.
pub fn panels(engine: &mut Engine, preset: Option<&str>, steps: &[u64], lang: Lang) -> Vec<Panel> {
    steps
        .iter()
        .map(|&step| {
            engine.seek(step);
            let frame = engine.frame();
            let positions = crate::placement::positions(engine.scenario(), &frame);
            let lines = crate::state::lines_at(engine.interventions(), engine.cursor());
            // The caption's first lines (algorithm, preset) are the strip's title.
            let all = super::caption(engine.algorithm(), preset, &frame, lang);
            let caption = all[all.len() - 2..].to_vec();
            let links = engine.scenario().topology.as_ref().map_or_else(Vec::new, |g| g.edges.clone());
            Panel { frame, positions, lines, caption, links }
        })
        .collect()
}

/// Text for TeX: its special characters escaped, and the few symbols the lab writes that a plain
/// `pdflatex` does not know as text written as commands.
pub fn tex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '_' | '&' | '%' | '#' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '·' => out.push_str("$\\cdot$"),
            '→' => out.push_str("$\\rightarrow$"),
            '←' => out.push_str("$\\leftarrow$"),
            '≈' => out.push_str("$\\approx$"),
            '≤' => out.push_str("$\\leq$"),
            '≥' => out.push_str("$\\geq$"),
            '×' | '✕' => out.push_str("$\\times$"),
            '…' => out.push_str("\\dots{}"),
            '✓' => out.push_str("$\\surd$"),
            '✗' => out.push_str("$\\times$"),
            '—' => out.push_str("---"),
            '–' => out.push_str("--"),
            c => out.push(c),
        }
    }
    out
}

/// Whether `s` needs the CJK environment (Chinese captions).
pub(super) fn cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{2e80}'..='\u{9fff}').contains(&c) || ('\u{ff00}'..='\u{ffef}').contains(&c))
}

pub(super) fn num(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// A kind's dash in points (the canvas's, a little longer for paper): `on 4.5pt off 2.7pt`.
fn dash_pattern(dash: Option<&str>) -> String {
    match dash {
        None => "solid".into(),
        Some(d) => {
            let v: Vec<f64> = d.split(' ').filter_map(|x| x.parse().ok()).collect();
            let mut out = String::from("dash pattern=");
            for (i, x) in v.iter().enumerate() {
                let _ = write!(out, "{}{}pt", if i % 2 == 0 { "on " } else { " off " }, num(x * 0.45));
                if i % 2 == 1 && i + 1 < v.len() {
                    out.push(' ');
                }
            }
            out
        }
    }
}

/// A kind's dot at the origin of a `shift`: its shape as a TikZ path of radius `r` (units).
fn shape_path(shape: Shape, r: f64) -> String {
    if shape == Shape::Circle {
        return format!("(0,0) circle[radius={}]", num(r));
    }
    // The canvas's own polygon (`M x y L x y … Z`), point by point.
    let d = shape.path(r);
    let pts: Vec<String> = d
        .trim_end_matches('Z')
        .split(['M', 'L'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut xy = p.split(' ');
            format!("({},{})", xy.next().unwrap_or("0"), xy.next().unwrap_or("0"))
        })
        .collect();
    format!("{} -- cycle", pts.join(" -- "))
}

/// The style name of a look (`None`: crashed).
fn look_style(look: Option<NodeLook>) -> &'static str {
    match look {
        None => "el crashed",
        Some(NodeLook::Leader) => "el leader",
        Some(NodeLook::Candidate) => "el candidate",
        Some(NodeLook::Waiting) => "el waiting",
        Some(NodeLook::Participant) => "el participant",
        Some(NodeLook::Follower) => "el follower",
        Some(NodeLook::Store) => "el store",
    }
}

/// The preamble: colours (greys when `grey`), a style per node look and per message kind.
fn preamble(alg: &Algorithm, grey: bool, chinese: bool) -> String {
    let mut s = String::from(
        "% Election Lab: a figure for LaTeX notes. Compiles with pdflatex and TikZ alone (Debian:\n\
         % texlive-latex-base, texlive-pictures); the page is cropped to the picture. In your notes:\n\
         % \\includegraphics the PDF, or copy the tikzpicture and the \\tikzset styles.\n\
         \\documentclass{article}\n\\usepackage{tikz}\n",
    );
    if chinese {
        s.push_str("\\usepackage{CJKutf8} % Chinese text: the CJK package and its fonts (texlive-lang-chinese)\n");
    }
    s.push_str("\\usetikzlibrary{arrows.meta}\n");
    let colour = |s: &mut String, name: &str, hex: &str| {
        let hex = hex.trim_start_matches('#');
        if grey {
            let v = u32::from_str_radix(hex, 16).unwrap_or(0x999999);
            let (r, g, b) = ((v >> 16) & 255, (v >> 8) & 255, v & 255);
            let luma = (0.2126 * r as f64 + 0.7152 * g as f64 + 0.0722 * b as f64) / 255.0;
            let _ = writeln!(s, "\\definecolor{{{name}}}{{gray}}{{{:.3}}}", luma);
        } else {
            let _ = writeln!(s, "\\definecolor{{{name}}}{{HTML}}{{{}}}", hex.to_ascii_uppercase());
        }
    };
    colour(&mut s, "elLeader", crate::palette::okabe_ito::BLUE);
    colour(&mut s, "elCandidate", crate::palette::okabe_ito::ORANGE);
    colour(&mut s, "elWaiting", crate::palette::okabe_ito::PURPLE);
    colour(&mut s, "elBad", "#B3261E");
    for (i, k) in alg.kinds.iter().enumerate() {
        colour(&mut s, &format!("elK{i}"), kind_colour(alg, k.name));
    }
    s.push_str(
        "\\tikzset{\n\
         el node/.style={circle, minimum size=#1, inner sep=0pt, font=\\sffamily\\bfseries\\small},\n\
         el follower/.style={fill=white, draw=black!55, line width=0.6pt},\n\
         el leader/.style={fill=elLeader!85!black, draw=black, line width=1.6pt, text=white},\n\
         el candidate/.style={fill=white, draw=elCandidate!70!black, line width=1.6pt, dash pattern=on 2.5pt off 1.5pt},\n\
         el waiting/.style={fill=white, draw=elWaiting!70!black, line width=0.6pt, double, double distance=1.2pt},\n\
         el participant/.style={fill=white, draw=elCandidate!70!black, line width=1.2pt, densely dotted},\n\
         el store/.style={fill=black!15, draw=black, line width=1.2pt},\n\
         el crashed/.style={fill=black!20, draw=black!45, line width=0.6pt, text=black!60},\n\
         el cross/.style={draw=elBad, line width=1.2pt},\n\
         el cut/.style={draw=elBad, line width=1.4pt, dash pattern=on 6pt off 3pt},\n\
         el link/.style={draw=black!35, line width=0.6pt},\n\
         el tree/.style={draw=black!80, line width=2pt},\n\
         el label/.style={font=\\sffamily\\scriptsize, align=center, text=black!80},\n\
         el caption/.style={font=\\sffamily\\small, align=center},\n\
         el title/.style={font=\\sffamily\\bfseries\\normalsize},\n\
         el dot label/.style={font=\\sffamily\\bfseries\\tiny, fill=white, fill opacity=0.8, text opacity=1, inner sep=0.8pt},\n",
    );
    for (i, k) in alg.kinds.iter().enumerate() {
        let (_, dash) = kind_shape(alg, k.name);
        let _ = writeln!(
            s,
            "el kind {i}/.style={{draw=elK{i}!80!black, line width=0.9pt, {}}}, % {}",
            dash_pattern(dash),
            tex(k.name)
        );
    }
    s.push_str("}\n");
    s
}

/// The beginning of a document up to its picture's first lines, `title` (the counterpart of
/// [`finish`]): the preamble, the page, the picture's box and the title's lines.
pub(super) fn begin(alg: &Algorithm, title: &[String], grey: bool, chinese: bool) -> String {
    let mut s = preamble(alg, grey, chinese);
    s.push_str("\\pagestyle{empty}\n\\newsavebox{\\elfigure}\n\\begin{document}\n");
    if chinese {
        s.push_str("\\begin{CJK}{UTF8}{gbsn}\n");
    }
    s.push_str("\\begin{lrbox}{\\elfigure}\n\\begin{tikzpicture}[x=0.008cm, y=-0.008cm]\n");
    for (i, t) in title.iter().enumerate() {
        let style = if i == 0 { "el title" } else { "el caption" };
        let _ = writeln!(s, "\\node[{style}, anchor=west] at (0,{}) {{{}}};", num(-110.0 + i as f64 * 55.0), tex(t));
    }
    s
}

/// One panel's drawing, its top left corner at `(dx, 0)` in canvas units.
fn panel(out: &mut String, alg: &Algorithm, p: &Panel, dx: f64, lang: Lang) {
    let f = &p.frame;
    let n = f.nodes.len();
    let r = layout::node_radius(n);
    let _ = writeln!(out, "\\begin{{scope}}[shift={{({},0)}}]", num(dx));
    let _ = writeln!(out, "\\draw[black!25, line width=0.4pt] (0,0) rectangle (1000,1000);");
    for line in &p.lines {
        if let Some((a, b)) = clip_to_box(line) {
            let _ = writeln!(out, "\\draw[el cut] ({},{}) -- ({},{});", num(a.0), num(a.1), num(b.0), num(b.1));
        }
    }
    let at = |id: u32| f.nodes.iter().position(|nd| nd.id == id).and_then(|i| p.positions.get(i).copied());
    // The network's links under everything, a spanning tree's (a node's parent) bold.
    for &(a, b) in &p.links {
        let (Some(pa), Some(pb)) = (p.positions.get(a as usize), p.positions.get(b as usize)) else { continue };
        let look = crate::components::canvas_parts::link_look(f, a as usize, b as usize);
        let (u, v) = edge(*pa, *pb, r);
        let style = match (look.tree, look.ab, look.ba, look.pruned) {
            (true, ..) => "el tree",
            (_, true, true, _) => "el link, {Stealth[length=6pt]}-{Stealth[length=6pt]}",
            (_, true, _, _) => "el link, -{Stealth[length=6pt]}",
            (_, _, true, _) => "el link, {Stealth[length=6pt]}-",
            (.., true) => "el link, dash pattern=on 3pt off 2pt",
            _ => "el link",
        };
        let _ = writeln!(out, "\\draw[{style}] ({},{}) -- ({},{});", num(u.0), num(u.1), num(v.0), num(v.1));
    }
    let dense = f.messages.len() > 60;
    for m in &f.messages {
        let (Some(a), Some(b)) = (at(m.from), at(m.to)) else { continue };
        let i = alg.kinds.iter().position(|k| k.name == m.kind).unwrap_or(0);
        let (a, b) = lane(edge(a, b, r + 4.0));
        let progress = crate::anim::progress(f.time as f64, m.sent as f64, m.deliver as f64);
        let (shape, _) = kind_shape(alg, m.kind);
        let pos = match m.doom {
            // A doomed dot travels to where it dies, drawn dashed and faint, ending in a cross.
            Some(reason) => {
                let end = doom_end(reason, a, b, &p.lines);
                let _ = writeln!(
                    out,
                    "\\draw[el kind {i}, opacity=0.6] ({},{}) -- ({},{});",
                    num(a.0),
                    num(a.1),
                    num(end.0),
                    num(end.1)
                );
                let _ = writeln!(
                    out,
                    "\\node[text=elBad, font=\\bfseries] at ({},{}) {{$\\times$}};",
                    num(end.0),
                    num(end.1)
                );
                crate::anim::lerp(a, end, progress)
            }
            None => {
                let _ = writeln!(
                    out,
                    "\\draw[el kind {i}, -{{Stealth[length=5pt]}}] ({},{}) -- ({},{});",
                    num(a.0),
                    num(a.1),
                    num(b.0),
                    num(b.1)
                );
                crate::anim::lerp(a, b, progress)
            }
        };
        let _ = writeln!(
            out,
            "\\filldraw[fill=elK{i}, draw=black, line width=0.4pt, shift={{({},{})}}] {};",
            num(pos.0),
            num(pos.1),
            shape_path(shape, 13.0)
        );
        if !dense {
            let _ = writeln!(
                out,
                "\\node[el dot label, anchor=south west] at ({},{}) {{{}}};",
                num(pos.0 + 8.0),
                num(pos.1 - 8.0),
                tex(&crate::components::canvas_parts::dot_label(alg, m))
            );
        }
    }
    for (node, &(x, y)) in f.nodes.iter().zip(&p.positions) {
        let look = if node.up { Some(alg.role(node.view.role).map_or(NodeLook::Follower, |r| r.look)) } else { None };
        let (head, sub) = node_texts(alg, lang, node);
        let mut text = vec![head];
        text.extend(sub.into_iter().take(1));
        let text: Vec<String> = text.iter().map(|t| tex(t)).collect();
        // The label outwards from the centre (TikZ's angles count up, the canvas's y goes down).
        let angle = (layout::CENTRE - y).atan2(x - layout::CENTRE).to_degrees().round() as i64;
        let _ = writeln!(
            out,
            "\\node[el node={:.2}cm, {}, label={{[el label]{}:{{{}}}}}] (n{}) at ({},{}) {{N{}}};",
            2.0 * r * 0.008,
            look_style(look),
            angle,
            text.join("\\\\"),
            node.id,
            num(x),
            num(y),
            node.id
        );
        if !node.up {
            let q = r * 0.7;
            let _ = writeln!(
                out,
                "\\draw[el cross] ({},{}) -- ({},{}) ({},{}) -- ({},{});",
                num(x - q),
                num(y - q),
                num(x + q),
                num(y + q),
                num(x - q),
                num(y + q),
                num(x + q),
                num(y - q)
            );
        }
    }
    for (i, c) in p.caption.iter().enumerate() {
        let _ = writeln!(out, "\\node[el caption] at (500,{}) {{{}}};", num(1060.0 + i as f64 * 55.0), tex(c));
    }
    out.push_str("\\end{scope}\n");
}

/// The legend's items in rows under the panels, from `y`, across `width` units.
pub(super) fn legend_rows(out: &mut String, alg: &Algorithm, legend: &Legend, y: f64, width: f64) {
    let mut items: Vec<(String, String)> = Vec::new();
    for r in &legend.roles {
        items.push((format!("\\node[el node=0.32cm, {}] at (0,0) {{}};", look_style(Some(r.look))), tex(&r.name)));
    }
    if let Some(w) = &legend.crashed {
        items.push((
            "\\node[el node=0.32cm, el crashed] at (0,0) {}; \\draw[el cross] (-11,-11) -- (11,11) (-11,11) -- (11,-11);".into(),
            tex(w),
        ));
    }
    for e in &legend.kinds {
        let i = alg.kinds.iter().position(|k| k.name == e.name).unwrap_or(0);
        items.push((
            format!(
                "\\draw[el kind {i}] (-45,0) -- (45,0); \\filldraw[fill=elK{i}, draw=black, line width=0.4pt] {};",
                shape_path(e.shape, 14.0)
            ),
            format!("\\textbf{{{}}} {}", tex(e.short), tex(e.name)),
        ));
    }
    for (class, text) in &legend.extras {
        let style = match *class {
            "graph-link" => "el link",
            "tree-link" => "el tree",
            "oriented-link" => "el link, -{Stealth[length=6pt]}",
            "pruned-link" => "el link, dash pattern=on 3pt off 2pt",
            _ => continue,
        };
        items.push((format!("\\draw[{style}] (-45,0) -- (45,0);"), tex(text)));
    }
    if let Some(w) = &legend.doomed {
        items.push(("\\draw[black!60, dash pattern=on 3pt off 2pt] (-45,0) -- (30,0); \\node[text=elBad, font=\\bfseries] at (38,0) {$\\times$};".into(), tex(w)));
    }
    let (mut x, mut row) = (60.0, 0.0);
    for (marker, text) in items {
        let w = 150.0 + text.chars().filter(|c| c.is_alphanumeric() || *c == ' ').count() as f64 * 17.0;
        if x > 60.0 && x + w > width {
            x = 60.0;
            row += 1.0;
        }
        let _ = writeln!(
            out,
            "\\begin{{scope}}[shift={{({},{})}}]{marker} \\node[el label, anchor=west] at (60,0) {{{text}}};\\end{{scope}}",
            num(x),
            num(y + row * 60.0)
        );
        x += w;
    }
}

/// The end of a document: the picture's box set on a page its own size.
pub(super) fn finish(s: &mut String, chinese: bool) {
    s.push_str("\\end{tikzpicture}\n\\end{lrbox}%\n");
    // The page is the picture with a margin of 8 pt (pdfTeX's page size registers).
    s.push_str(
        "\\pdfpagewidth=\\dimexpr\\wd\\elfigure+16pt\\relax \\pdfpageheight=\\dimexpr\\ht\\elfigure+\\dp\\elfigure+16pt\\relax\n\
         \\hoffset=-1in \\voffset=-1in \\oddsidemargin=8pt \\topmargin=8pt \\headheight=0pt \\headsep=0pt\n\
         \\hsize=\\wd\\elfigure \\vsize=\\dimexpr\\ht\\elfigure+\\dp\\elfigure+8pt\\relax \\parindent=0pt\n\
         \\noindent\\usebox{\\elfigure}\n",
    );
    if chinese {
        s.push_str("\\end{CJK}\n");
    }
    s.push_str("\\end{document}\n");
}

/// The standalone document: `title` above, the panels side by side with their captions, the
/// legend below. In colour, or in greys when `grey`.
pub fn document(
    alg: &Algorithm,
    title: &[String],
    panels: &[Panel],
    legend: &Legend,
    grey: bool,
    lang: Lang,
) -> String {
    let chinese = title.iter().chain(panels.iter().flat_map(|p| &p.caption)).any(|t| cjk(t))
        || legend.roles.iter().any(|r| cjk(&r.name));
    let mut s = begin(alg, title, grey, chinese);
    for (i, p) in panels.iter().enumerate() {
        panel(&mut s, alg, p, i as f64 * 1100.0, lang);
    }
    let width = (panels.len().max(1) as f64 * 1100.0 - 100.0).max(1000.0);
    let captions = panels.iter().map(|p| p.caption.len()).max().unwrap_or(0) as f64;
    legend_rows(&mut s, alg, legend, 1080.0 + captions * 55.0 + 40.0, width);
    finish(&mut s, chinese);
    s
}

/// The file name of a figure of `steps`: `election-lab-<preset or algorithm>-step<N>.tex`, or
/// `-steps<A>-<B>-<C>.tex` for a strip.
pub fn file_name(alg: &Algorithm, preset: Option<&str>, steps: &[u64]) -> String {
    let which = preset.unwrap_or(alg.id);
    match steps {
        [one] => format!("election-lab-{which}-step{one}.tex"),
        many => {
            format!("election-lab-{which}-steps{}.tex", many.iter().map(u64::to_string).collect::<Vec<_>>().join("-"))
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::export::legend::{legend, tests::first, Legend};
    use std::path::PathBuf;
    use std::process::Command;

    /// Compiles `doc` with `pdflatex` in a directory of its own under the temporary directory and
    /// returns the PDF's bytes; fails (never skips) when `pdflatex` is missing.
    pub(crate) fn pdflatex(name: &str, doc: &str) -> Vec<u8> {
        let dir: PathBuf = std::env::temp_dir().join(format!("election-lab-tikz-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.tex")), doc).unwrap();
        let run = Command::new("pdflatex")
            .args(["-interaction=nonstopmode", "-halt-on-error", &format!("{name}.tex")])
            .current_dir(&dir)
            .output()
            .unwrap_or_else(|e| panic!("pdflatex could not be run ({e}): `make setup-test` installs it"));
        let log = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "pdflatex failed on {}:\n{}",
            dir.display(),
            &log[log.len().saturating_sub(3000)..]
        );
        let pdf = std::fs::read(dir.join(format!("{name}.pdf"))).unwrap();
        assert!(pdf.starts_with(b"%PDF") && pdf.len() > 1000, "a PDF");
        assert!(log.contains("(1 page,"), "one page, cropped to the picture:\n{log}");
        assert!(!log.contains("Missing character"), "every character has a glyph:\n{log}");
        // ELECTION_LAB_FIGURES=dir keeps the figures there, to look at them.
        if let Some(keep) = std::env::var_os("ELECTION_LAB_FIGURES") {
            let _ = std::fs::create_dir_all(&keep);
            let _ = std::fs::copy(dir.join(format!("{name}.pdf")), PathBuf::from(&keep).join(format!("{name}.pdf")));
            let _ = std::fs::copy(dir.join(format!("{name}.tex")), PathBuf::from(&keep).join(format!("{name}.tex")));
        }
        let _ = std::fs::remove_dir_all(&dir);
        pdf
    }

    #[test]
    fn tex_specials_are_escaped() {
        assert_eq!(
            tex("a_b & 50% #3 $x$ {y} ~^\\"),
            "a\\_b \\& 50\\% \\#3 \\$x\\$ \\{y\\} \\textasciitilde{}\\textasciicircum{}\\textbackslash{}"
        );
        assert_eq!(tex("step 4 · t = 3, → N5"), "step 4 $\\cdot$ t = 3, $\\rightarrow$ N5");
    }

    #[test]
    fn a_chinese_figure_sets_its_text_in_the_cjk_environment() {
        let mut e = first("bully-heal", 3, 0);
        let step = e.cursor();
        let alg = e.algorithm();
        let ps = panels(&mut e, Some("bully-heal"), &[step], Lang::Zh);
        let frames: Vec<&Frame> = ps.iter().map(|p| &p.frame).collect();
        let zh = document(
            alg,
            &[alg.title.get(Lang::Zh).into()],
            &ps,
            &legend(alg, &frames, false, Lang::Zh),
            false,
            Lang::Zh,
        );
        assert!(zh.contains("\\usepackage{CJKutf8}") && zh.contains("\\begin{CJK}{UTF8}{gbsn}"));
        assert!(zh.find("\\begin{CJK}") < zh.find("\\begin{lrbox}") && zh.find("\\end{CJK}") > zh.find("\\usebox"));
        let en = document(alg, &["Bully".into()], &ps[..0], &Legend::default(), false, Lang::En);
        assert!(!en.contains("CJK"), "an English figure needs no CJK package");
    }

    #[test]
    fn the_tikz_of_a_bully_step_compiles_with_pdflatex() {
        let mut e = first("bully-heal", 3, 0);
        let step = e.cursor();
        let alg = e.algorithm();
        let mut ps = panels(&mut e, Some("bully-heal"), &[step], Lang::En);
        // A label with every TeX special character in it still compiles.
        ps[0].caption.push("odd_label & 100% #1 $5".into());
        let frames: Vec<&Frame> = ps.iter().map(|p| &p.frame).collect();
        let l = legend(alg, &frames, false, Lang::En);
        let title = vec![alg.title.get(Lang::En).to_string(), "Bully_heal & co".into()];
        let doc = document(alg, &title, &ps, &l, false, Lang::En);
        assert!(doc.starts_with("% Election Lab") && doc.contains("\\documentclass{article}"));
        assert!(doc.contains("odd\\_label \\& 100\\% \\#1 \\$5") && doc.contains("Bully\\_heal \\& co"));
        // Every node at its place, every message in flight drawn with its kind's style.
        for (n, (x, y)) in ps[0].frame.nodes.iter().zip(&ps[0].positions) {
            assert!(doc.contains(&format!("at ({},{}) {{N{}}}", num(*x), num(*y), n.id)), "N{}", n.id);
        }
        for k in &l.kinds {
            let i = alg.kinds.iter().position(|x| x.name == k.name).unwrap();
            assert!(doc.contains(&format!("\\draw[el kind {i}, ")), "{}", k.name);
        }
        pdflatex("step", &doc);
        // In greys, the colours are greys and the document still compiles.
        let grey = document(alg, &title, &ps, &l, true, Lang::En);
        assert!(grey.contains("{gray}") && !grey.contains("{HTML}"));
        // Crashed nodes are crossed out and partition lines drawn (split-brain-bully).
        let mut e = first("bully-worst-8", 1, 1);
        let step = e.cursor();
        let ps = panels(&mut e, None, &[step], Lang::En);
        let frames: Vec<&Frame> = ps.iter().map(|p| &p.frame).collect();
        let doc = document(alg, &title, &ps, &legend(alg, &frames, false, Lang::En), true, Lang::En);
        assert!(doc.contains("\\draw[el cross]") && doc.contains("el crashed"));
        pdflatex("crashed", &doc);
    }

    #[test]
    fn the_tikz_of_a_topology_draws_its_links_and_spanning_tree_and_compiles() {
        let preset = election_lab::presets::find("floodmax-grid").unwrap();
        let mut e = election_lab::Engine::new(preset.scenario()).unwrap();
        e.run_to_end();
        let step = e.cursor();
        let alg = e.algorithm();
        let ps = panels(&mut e, Some(preset.id), &[step], Lang::En);
        let graph = e.scenario().topology.clone().unwrap();
        assert_eq!(ps[0].links, graph.edges, "the scenario's links, each once");
        let frames: Vec<&Frame> = ps.iter().map(|p| &p.frame).collect();
        let l = legend(alg, &frames, true, Lang::En);
        let doc = document(alg, &[alg.title.get(Lang::En).into()], &ps, &l, false, Lang::En);
        let drawn = |style: &str| doc.lines().filter(|x| x.starts_with(&format!("\\draw[{style}] ("))).count();
        // FloodMax's parents form a spanning tree: one bold link per node but the leader.
        let children = ps[0].frame.nodes.iter().filter(|n| n.view.parent().is_some()).count();
        assert_eq!(children, ps[0].frame.nodes.len() - 1);
        assert_eq!(drawn("el tree"), children);
        assert_eq!(drawn("el tree") + drawn("el link"), graph.edges.len());
        // The legend names both lines, as the page's legend does.
        assert!(doc.contains("\\draw[el link] (-45,0)") && doc.contains("\\draw[el tree] (-45,0)"));
        pdflatex("topology", &doc);
        pdflatex("topology-grey", &document(alg, &["FloodMax".into()], &ps, &l, true, Lang::En));
    }
}
