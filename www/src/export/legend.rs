//! The picture's legend: each message kind drawn as the canvas draws it (its dot's shape over an
//! edge with its dash, in its colour), the node looks of the roles shown (a disc styled as the
//! canvas styles that look), crashed nodes and doomed messages; and the greyscale rewrite of a
//! picture, after which kinds differ by shape and dash alone.

use super::Look;
use crate::i18n::{k, tr, Lang};
use crate::meta::{kind_colour, kind_shape, role_label};
use crate::palette::Shape;
use election_lab::meta::Look as NodeLook;
use election_lab::plot::escape;
use election_lab::{Algorithm, Frame};

/// One legend entry: a message kind drawn in the picture.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub colour: &'static str,
    pub short: &'static str,
    pub name: &'static str,
    /// The dot's shape on the canvas.
    pub shape: Shape,
    /// The dash of its edges on the canvas (`None`: solid).
    pub dash: Option<&'static str>,
}

impl Entry {
    pub fn of(alg: &Algorithm, kind: &election_lab::meta::Kind) -> Entry {
        let (shape, dash) = kind_shape(alg, kind.name);
        Entry { colour: kind_colour(alg, kind.name), short: kind.short, name: kind.name, shape, dash }
    }
}

/// A node look shown in the picture: the role's short name and how it is drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleEntry {
    pub look: NodeLook,
    pub name: String,
}

/// What the picture's legend lists, in the page's language.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Legend {
    /// The kinds in flight, in the algorithm's kind order.
    pub kinds: Vec<Entry>,
    /// The roles of the nodes that are up, in the algorithm's role order.
    pub roles: Vec<RoleEntry>,
    /// The word for a crashed node, if one is drawn.
    pub crashed: Option<String>,
    /// The words for a message that will not arrive, if one is drawn.
    pub doomed: Option<String>,
    /// The extras drawn (group bands, colour rings, reach arcs, vote arrows, partition halos):
    /// the canvas's class of each and its words, as the page's legend lists them.
    pub extras: Vec<(&'static str, String)>,
}

/// The legend of what `frames` draw (one frame for a picture, several for a strip); `links` when
/// the scenario gives a network graph, whose links the canvas draws.
pub fn legend(alg: &Algorithm, frames: &[&Frame], links: bool, lang: Lang) -> Legend {
    let any_msg = |f: &dyn Fn(&election_lab::MsgFrame) -> bool| frames.iter().any(|fr| fr.messages.iter().any(f));
    let any_node = |f: &dyn Fn(&election_lab::NodeFrame) -> bool| frames.iter().any(|fr| fr.nodes.iter().any(f));
    Legend {
        kinds: alg.kinds.iter().filter(|k| any_msg(&|m| m.kind == k.name)).map(|k| Entry::of(alg, k)).collect(),
        roles: alg
            .roles
            .iter()
            .filter(|r| any_node(&|n| n.up && n.view.role == r.name))
            .map(|r| RoleEntry { look: r.look, name: role_label(alg, r.name, lang) })
            .collect(),
        crashed: any_node(&|n| !n.up).then(|| tr(lang, k::UI_CRASHED).to_string()),
        doomed: any_msg(&|m| m.doomed).then(|| tr(lang, k::UI_WILL_NOT_ARRIVE).to_string()),
        extras: {
            let mut out: Vec<(&'static str, String)> = Vec::new();
            for (class, text) in frames.iter().flat_map(|f| crate::components::teach::extras(alg, f, links)) {
                if !out.iter().any(|(c, _)| *c == class) {
                    out.push((class, text.get(lang).to_string()));
                }
            }
            out
        },
    }
}

/// The swatch of an extra at font `size`, drawn as the page's legend draws it.
fn extra_marker(class: &str, size: f64, c: &Look) -> String {
    let r = num(0.45 * size);
    let half = num(0.55 * size);
    let body = match class {
        "group-hull" => format!(
            "<path d=\"M-{half} 0L{half} 0\" stroke=\"#56B4E9\" stroke-width=\"{}\" stroke-linecap=\"round\" opacity=\"0.35\"/>",
            num(size * 0.5)
        ),
        "tint" => format!("<circle r=\"{r}\" fill=\"none\" stroke=\"#1fad4f\" stroke-width=\"{}\"/>", num(size * 0.12)),
        "reach-arc" => format!(
            "<path d=\"M-{half} {q}A{half} {half} 0 0 1 {half} {q}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"/>",
            escape(&c.candidate),
            num(size * 0.12),
            q = num(0.2 * size)
        ),
        "vote-arrow" => format!(
            "<line x1=\"-{half}\" y1=\"0\" x2=\"{half}\" y2=\"0\" stroke=\"{}\" stroke-width=\"{}\" stroke-dasharray=\"{}\"/>",
            escape(&c.ink),
            num(size * 0.1),
            scaled("4 3", size / 24.0)
        ),
        _ => format!("<circle r=\"{}\" fill=\"#E69F00\" opacity=\"0.35\"/>", num(0.55 * size)),
    };
    format!("<g class=\"legend-extra\" data-extra=\"{class}\">{body}</g>")
}

/// A legend item: its marker (SVG centred on the origin, for a font of the item's size), the
/// text beside it (markup) and that text's length in characters.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub marker: String,
    pub text: String,
    pub chars: usize,
}

/// A marker's width in font sizes; the text starts half a size after it.
pub const MARKER: f64 = 2.4;

fn num(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// `dash` (canvas units, drawn at stroke width 2 over 1000 units) scaled by `f`.
fn scaled(dash: &str, f: f64) -> String {
    dash.split(' ').map(|x| num(x.parse::<f64>().unwrap_or(4.0) * f)).collect::<Vec<_>>().join(" ")
}

/// How the canvas draws a node of `look` (style.css's `.node.look-*`): fill, stroke, stroke
/// width and dash, in the picture's colours.
pub fn disc_style(look: Option<NodeLook>, c: &Look) -> (&str, &str, f64, Option<&'static str>) {
    match look {
        None => (&c.crashed, &c.crashed, 3.0, None),
        Some(NodeLook::Leader) => (&c.leader, &c.leader, 6.0, None),
        Some(NodeLook::Candidate) => (&c.node, &c.candidate, 6.0, Some("8 5")),
        Some(NodeLook::Waiting) => (&c.node, &c.waiting, 5.0, None),
        Some(NodeLook::Participant) => (&c.node, &c.candidate, 4.0, None),
        Some(NodeLook::Follower) => (&c.node, &c.muted, 3.0, None),
        Some(NodeLook::Store) => (&c.line, &c.ink, 5.0, None),
    }
}

/// The swatch of a kind at font `size`: a stretch of edge with the kind's dash under its dot.
fn kind_marker(e: &Entry, size: f64, c: &Look) -> String {
    let (half, r) = (MARKER * size / 2.0, 0.42 * size);
    let dash = e.dash.map_or(String::new(), |d| format!(" stroke-dasharray=\"{}\"", scaled(d, size / 20.0)));
    format!(
        "<g class=\"legend-kind\" data-kind=\"{}\" data-shape=\"{}\"><line x1=\"{}\" y1=\"0\" x2=\"{}\" y2=\"0\" stroke=\"{}\" stroke-width=\"{}\"{dash}/><path d=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1\"/></g>",
        escape(e.name),
        format!("{:?}", e.shape).to_ascii_lowercase(),
        num(-half),
        num(half),
        e.colour,
        num(size * 0.14),
        e.shape.path(r),
        e.colour,
        escape(&c.ink),
    )
}

/// The swatch of a node look (`None`: crashed) at font `size`.
fn look_marker(look: Option<NodeLook>, size: f64, c: &Look) -> String {
    let (fill, stroke, width, dash) = disc_style(look, c);
    let r = 0.45 * size;
    let f = size / 28.0;
    let dash = dash.map_or(String::new(), |d| format!(" stroke-dasharray=\"{}\"", scaled(d, f * 0.6)));
    let name = look.map_or("crashed", NodeLook::name);
    let mut out = format!(
        "<g class=\"legend-look\" data-look=\"{name}\"><circle r=\"{}\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{dash}{}/>",
        num(r),
        escape(fill),
        escape(stroke),
        num((width * f * 0.6).max(1.0)),
        if look.is_none() { " opacity=\"0.6\"" } else { "" },
    );
    if look.is_none() {
        let q = num(r * 0.6);
        out.push_str(&format!(
            "<path d=\"M-{q} -{q}L{q} {q}M{q} -{q}L-{q} {q}\" stroke=\"{}\" stroke-width=\"{}\"/>",
            escape(&c.bad),
            num(size * 0.12)
        ));
    }
    out.push_str("</g>");
    out
}

impl Legend {
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
            && self.roles.is_empty()
            && self.crashed.is_none()
            && self.doomed.is_none()
            && self.extras.is_empty()
    }

    /// The items in order: node looks, crashed, kinds, doomed, extras.
    pub fn items(&self, size: f64, c: &Look) -> Vec<Item> {
        let mut out: Vec<Item> = self
            .roles
            .iter()
            .map(|r| Item {
                marker: look_marker(Some(r.look), size, c),
                text: escape(&r.name),
                chars: r.name.chars().count(),
            })
            .collect();
        if let Some(w) = &self.crashed {
            out.push(Item { marker: look_marker(None, size, c), text: escape(w), chars: w.chars().count() });
        }
        for e in &self.kinds {
            out.push(Item {
                marker: kind_marker(e, size, c),
                text: format!("<tspan font-weight=\"700\">{}</tspan> {}", escape(e.short), escape(e.name)),
                chars: e.short.chars().count() + 1 + e.name.chars().count(),
            });
        }
        if let Some(w) = &self.doomed {
            let marker = format!(
                "<circle r=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"3 2\"/>",
                num(0.45 * size),
                escape(&c.bad)
            );
            out.push(Item { marker, text: escape(w), chars: w.chars().count() });
        }
        for (class, w) in &self.extras {
            out.push(Item { marker: extra_marker(class, size, c), text: escape(w), chars: w.chars().count() });
        }
        out
    }
}

/// One item with its marker's left edge at `x` and its middle at `y`.
pub fn draw_item(it: &Item, x: f64, y: f64, size: f64, ink: &str) -> String {
    format!(
        "<g transform=\"translate({} {})\">{}</g><text x=\"{}\" y=\"{}\" font-size=\"{}\" fill=\"{}\">{}</text>",
        num(x + MARKER * size / 2.0),
        num(y),
        it.marker,
        num(x + (MARKER + 0.5) * size),
        num(y + size * 0.35),
        num(size),
        escape(ink),
        it.text
    )
}

/// An item's width at font `size`.
pub fn item_width(it: &Item, size: f64) -> f64 {
    (MARKER + 0.5) * size + it.chars as f64 * size * 0.6
}

// ----- greyscale -----

/// The grey of an sRGB colour (Rec. 709 luma on the encoded values).
fn grey(r: f64, g: f64, b: f64) -> u8 {
    (0.2126 * r + 0.7152 * g + 0.0722 * b).round().clamp(0.0, 255.0) as u8
}

fn hex_grey(h: &str) -> Option<String> {
    let v: Vec<u8> = match h.len() {
        3 => h.chars().map(|c| c.to_digit(16).map(|d| d as u8 * 17)).collect::<Option<_>>()?,
        6 => (0..3).map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).ok()).collect::<Option<_>>()?,
        _ => return None,
    };
    let g = grey(v[0] as f64, v[1] as f64, v[2] as f64);
    Some(format!("#{g:02x}{g:02x}{g:02x}"))
}

fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (f64, f64, f64) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h.rem_euclid(360.0)) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    ((r + m) * 255.0, (g + m) * 255.0, (b + m) * 255.0)
}

/// The arguments of a colour function, `rgb(1, 2, 3)` or `hsl(10 50% 40% / .5)`, as numbers.
fn args(inner: &str) -> Vec<f64> {
    inner
        .split(|c: char| c == ',' || c == '/' || c.is_whitespace())
        .filter(|a| !a.is_empty())
        .filter_map(|a| a.trim_end_matches(['%', 'g', 'e', 'd']).parse().ok())
        .collect()
}

/// `svg` with every colour (`#rgb`, `#rrggbb`, `rgb()`, `rgba()`, `hsl()`, `hsla()`) replaced by
/// its grey: what the picture looks like printed in black and white, so that what tells kinds
/// apart there is their shape and dash. Ids (`url(#…)`, `href="#…"`) are left alone.
pub fn greyscale(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while !rest.is_empty() {
        let next = rest.find(['#', 'r', 'h']).unwrap_or(rest.len());
        out.push_str(&rest[..next]);
        rest = &rest[next..];
        if rest.is_empty() {
            break;
        }
        let before = out.chars().last().unwrap_or(' ');
        let word_start = !(before.is_ascii_alphanumeric() || before == '-' || before == '_');
        if let Some(h) = rest.strip_prefix('#') {
            let len = h.find(|c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_').unwrap_or(h.len());
            // `url(#…)` and `href="#…"` name an element, not a colour.
            let id = before == '(' || out.ends_with("href=\"");
            match (id, hex_grey(&h[..len])) {
                (false, Some(g)) => out.push_str(&g),
                _ => {
                    out.push('#');
                    out.push_str(&h[..len]);
                }
            }
            rest = &h[len..];
            continue;
        }
        let func = ["rgba(", "rgb(", "hsla(", "hsl("].into_iter().find(|f| rest.starts_with(f));
        if let (true, Some(f), Some(close)) = (word_start, func, rest.find(')')) {
            let a = args(&rest[f.len()..close]);
            if a.len() >= 3 {
                let (r, g, b) =
                    if f.starts_with('h') { hsl_to_rgb(a[0], a[1] / 100.0, a[2] / 100.0) } else { (a[0], a[1], a[2]) };
                let v = grey(r, g, b);
                match a.get(3) {
                    Some(alpha) => out.push_str(&format!("rgba({v}, {v}, {v}, {alpha})")),
                    None => out.push_str(&format!("#{v:02x}{v:02x}{v:02x}")),
                }
                rest = &rest[close + 1..];
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use election_lab::{presets, Engine};

    /// A run of `preset` at its first step with `kinds` kinds in flight and `down` nodes down.
    pub(crate) fn first(preset: &str, kinds: usize, down: usize) -> Engine {
        let mut e = Engine::new(presets::find(preset).unwrap().scenario()).unwrap();
        loop {
            let f = e.frame();
            let mut names: Vec<&str> = f.messages.iter().map(|m| m.kind).collect();
            election_lab::sort::sort_by(&mut names, |a, b| a.cmp(b));
            names.dedup();
            if names.len() >= kinds && f.nodes.iter().filter(|n| !n.up).count() >= down {
                return e;
            }
            assert!(e.step(), "{preset} never has {kinds} kinds in flight with {down} nodes down");
        }
    }

    /// The attribute `name` of every element of `class` in `svg`, in order.
    fn attrs<'a>(svg: &'a str, class: &str, name: &str) -> Vec<&'a str> {
        svg.split(&format!("class=\"{class}\""))
            .skip(1)
            .map(|rest| {
                let at = rest.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
                &rest[at..at + rest[at..].find('"').unwrap()]
            })
            .collect()
    }

    #[test]
    fn the_legend_draws_each_kind_with_its_canvas_shape_and_dash_and_lists_the_node_looks() {
        // Bully with three kinds in flight, and a step with a node down.
        let (e, down) = (first("bully-heal", 3, 0), first("bully-worst-8", 1, 1));
        let (alg, frame) = (e.algorithm(), e.frame());
        let l = legend(alg, &[&frame, &down.frame()], false, Lang::En);
        let c = crate::export::tests::look();
        let svg = super::super::compose("<svg/>", &["Bully".into()], &l, &c, 1920, super::super::Shape::Slide);
        // Every kind in flight, with the shape and dash the canvas gives it.
        let kinds = attrs(&svg, "legend-kind", "data-kind");
        let in_flight: Vec<&str> = alg
            .kinds
            .iter()
            .map(|k| k.name)
            .filter(|k| [frame.clone(), down.frame()].iter().any(|f| f.messages.iter().any(|m| m.kind == *k)))
            .collect();
        assert_eq!(kinds, in_flight);
        assert!(kinds.len() >= 3);
        let shapes = attrs(&svg, "legend-kind", "data-shape");
        for (kind, shape) in kinds.iter().zip(&shapes) {
            let (s, dash) = kind_shape(alg, kind);
            assert_eq!(*shape, format!("{s:?}").to_ascii_lowercase());
            let marker = svg.split(&format!("data-kind=\"{kind}\"")).nth(1).unwrap().split("</g>").next().unwrap();
            assert!(
                marker.contains(&format!("<path d=\"{}\"", s.path(0.42 * 28.0))),
                "{kind}: its shape's path: {marker}"
            );
            assert_eq!(marker.contains("stroke-dasharray"), dash.is_some(), "{kind}: its dash");
        }
        let mut distinct = shapes.clone();
        election_lab::sort::sort_by(&mut distinct, |a, b| a.cmp(b));
        distinct.dedup();
        assert_eq!(distinct.len(), shapes.len(), "no two kinds share a shape: {shapes:?}");
        assert!(shapes.iter().any(|s| *s != "circle"), "not every kind a circle: {shapes:?}");
        // The node looks of the roles drawn, and crashed.
        let looks = attrs(&svg, "legend-look", "data-look");
        for n in frame.nodes.iter().filter(|n| n.up) {
            let role = alg.role(n.view.role).unwrap();
            assert!(looks.contains(&role.look.name()), "{} drawn as {:?}: {looks:?}", n.view.role, role.look);
            assert!(svg.contains(&format!(">{}</text>", role_label(alg, role.name, Lang::En))));
        }
        assert!(looks.contains(&"crashed") && svg.contains(">crashed</text>"), "{looks:?}");
        // What else the canvas draws is listed too (here: the partition's halos).
        let page: Vec<&str> = crate::components::teach::extras(alg, &frame, false).iter().map(|(c, _)| *c).collect();
        assert!(!page.is_empty(), "bully-heal draws a partition at this step");
        assert_eq!(attrs(&svg, "legend-extra", "data-extra"), page);
        // Leader, candidate and plain look differ in what greyscale keeps: fill, width or dash.
        let styles: Vec<_> = [NodeLook::Leader, NodeLook::Candidate, NodeLook::Follower]
            .map(|l| disc_style(Some(l), &c))
            .map(|(fill, _, w, dash)| (fill == c.leader, w as u32, dash))
            .to_vec();
        assert!(styles[0] != styles[1] && styles[1] != styles[2] && styles[0] != styles[2]);
        // In Chinese, the names are the Chinese ones.
        let zh = legend(alg, &[&frame, &down.frame()], false, Lang::Zh);
        assert_eq!(zh.kinds, l.kinds);
        assert_ne!(zh.crashed, l.crashed);
    }

    #[test]
    fn greyscale_turns_every_colour_grey_and_leaves_ids_alone() {
        let svg = "<svg><marker id=\"a-arrow\"/><line stroke=\"#E69F00\" marker-end=\"url(#a-arrow)\" style=\"fill:rgb(0, 114, 178);stroke:rgba(213, 94, 0, 0.5)\"/><use href=\"#abc\"/><circle fill=\"#fff\" stroke=\"hsl(137, 70%, 40%)\"/><text>#1 rgb</text></svg>";
        let g = greyscale(svg);
        assert_eq!(
            g,
            "<svg><marker id=\"a-arrow\"/><line stroke=\"#a3a3a3\" marker-end=\"url(#a-arrow)\" style=\"fill:#5e5e5e;stroke:rgba(113, 113, 113, 0.5)\"/><use href=\"#abc\"/><circle fill=\"#ffffff\" stroke=\"#888888\"/><text>#1 rgb</text></svg>"
        );
        // The kinds of an algorithm may come out the same grey: their shapes still differ.
        let alg = election_lab::registry::find("bully").unwrap();
        let entries: Vec<Entry> = alg.kinds.iter().map(|k| Entry::of(alg, k)).collect();
        let shapes: Vec<_> = entries.iter().map(|e| e.shape).collect();
        assert!(shapes.windows(2).all(|w| w[0] != w[1]));
    }
}
