//! Sizes on screen and where labels go: text and dots keep a minimum size in screen pixels
//! whatever the canvas's rendered size (glyphs are scaled to the rendered size, not to the
//! viewBox), and labels are placed where they overlap no node and no other label. Messages whose
//! labels would pile up are folded into one label with a count ("OK×3"); the folded messages are
//! listed on hover (the dot's tooltip). Pure functions of positions and texts, tested natively.

use crate::geometry::Pt;
use crate::i18n::{tr, Lang};
use election_lab::meta::k;
use election_lab::{Algorithm, NodeFrame};

/// The smallest text on screen, in CSS pixels.
pub const MIN_TEXT_PX: f64 = 11.5;
/// The smallest touch target on screen (a node, a dot's hit area, a line's ✕), in CSS pixels.
pub const MIN_TARGET_PX: f64 = 24.0;

/// Sizes in viewBox units for a canvas drawn at `u` viewBox units per CSS pixel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizes {
    /// ViewBox units per CSS pixel (1000 / the drawing's side on screen).
    pub u: f64,
    pub node_r: f64,
    /// Node id, the line under a node (who it follows), the smaller lines under it.
    pub id: f64,
    pub view: f64,
    pub sub: f64,
    pub dot_label: f64,
    pub dot_r: f64,
    /// A dot's clickable radius.
    pub hit: f64,
}

impl Sizes {
    /// `node_r`: the layout's radius for this many nodes; `big`: a small canvas (a compare lane)
    /// whose texts start a size up; `min_px`: the smallest text on screen the page asks for
    /// (the canvas's CSS font size: larger in a big embed and in the presenter view).
    pub fn new(u: f64, node_r: f64, big: bool, min_px: f64) -> Sizes {
        let u = if u.is_finite() && u > 0.0 { u } else { 1.0 };
        let scale = if min_px.is_finite() { (min_px / MIN_TEXT_PX).clamp(1.0, 8.0) } else { 1.0 };
        let text = |vb: f64, px: f64| vb.max(px * scale * u);
        let k = if big { 1.25 } else { 1.0 };
        Sizes {
            u,
            node_r: node_r.max(MIN_TARGET_PX / 2.0 * u),
            id: text(24.0 * k, 12.5),
            view: text(20.0 * k, MIN_TEXT_PX),
            sub: text(17.0 * k, MIN_TEXT_PX),
            dot_label: text(15.0 * k, MIN_TEXT_PX),
            dot_r: (9.0f64).max(5.0 * u),
            hit: (15.0f64).max(MIN_TARGET_PX / 2.0 * u),
        }
    }
}

/// An axis-aligned box in viewBox units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// Whether the disc at `c` of radius `r` touches this box.
    pub fn hits_disc(&self, c: Pt, r: f64) -> bool {
        let dx = c.0 - c.0.clamp(self.x0, self.x1);
        let dy = c.1 - c.1.clamp(self.y0, self.y1);
        dx * dx + dy * dy < r * r
    }

    fn inside(&self, lo: f64, hi: f64) -> bool {
        self.x0 >= lo && self.y0 >= lo && self.x1 <= hi && self.y1 <= hi
    }
}

/// The width of `s` in a font of size `fs`: an estimate on the generous side for the page's
/// sans-serif (DejaVu Sans, bold included, is among the widest): capitals and digits wide, small
/// letters narrower, CJK one em.
pub fn text_width(s: &str, fs: f64) -> f64 {
    s.chars()
        .map(|c| match c {
            '→' | '×' | '✓' | '✗' => 0.86,
            _ if !c.is_ascii() => 1.0,
            'i' | 'l' | 'j' | 't' | 'f' | 'r' | ' ' | '.' | ',' | '(' | ')' | '/' | ':' | '\'' => 0.44,
            'M' | 'W' | 'm' | 'w' => 1.0,
            'A'..='Z' => 0.8,
            '0'..='9' => 0.71,
            _ => 0.64,
        })
        .sum::<f64>()
        * fs
}

/// The line height of a node's label lines, in font sizes.
pub const LINE: f64 = 1.2;
/// How far text reaches above and below its baseline, in font sizes (the font's ascent and
/// descent, as the browser boxes a text element).
const ASCENT: f64 = 0.95;
const DESCENT: f64 = 0.25;

/// How text is anchored at its point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    pub fn svg(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A block of lines placed at `(x, y)`: the first line's baseline, anchored by `anchor`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub x: f64,
    pub y: f64,
    pub anchor: Anchor,
    pub rect: Rect,
    /// How many of the label's lines fit (the first always; the rest stay in the tooltip).
    pub lines: usize,
}

/// The box of a block of `lines` (font sizes) of widest width `w`, first baseline at `(x, y)`.
fn block(x: f64, y: f64, anchor: Anchor, w: f64, sizes: &[f64]) -> Rect {
    let first = sizes.first().copied().unwrap_or(0.0);
    let last = sizes.last().copied().unwrap_or(0.0);
    let below: f64 = sizes.iter().skip(1).map(|s| s * LINE).sum::<f64>() + last * DESCENT;
    let x0 = match anchor {
        Anchor::Start => x,
        Anchor::Middle => x - w / 2.0,
        Anchor::End => x - w,
    };
    Rect { x0, y0: y - first * ASCENT, x1: x0 + w, y1: y + below }
}

/// What labels must not cover: node discs (with a margin) and labels placed so far.
#[derive(Clone, Debug, Default)]
pub struct Obstacles {
    pub discs: Vec<(Pt, f64)>,
    pub rects: Vec<Rect>,
}

impl Obstacles {
    fn free(&self, r: &Rect, skip_disc: Option<usize>) -> bool {
        r.inside(0.0, 1000.0)
            && self.discs.iter().enumerate().all(|(k, &(c, rad))| Some(k) == skip_disc || !r.hits_disc(c, rad))
            && self.rects.iter().all(|o| !r.overlaps(o))
    }
}

/// Places the label block of node `i` (at `p`, radius `r`, its lines with their font sizes and
/// widths) where it covers no disc and no label placed before: below or above it first (the
/// side away from the centre), then beside it, then the other side. `None`: nowhere is free.
pub fn place_node_label(obs: &mut Obstacles, p: Pt, r: f64, lines: &[(f64, f64)]) -> Option<Placed> {
    // Where the whole block finds no room (many nodes in a small frame), its first line alone.
    place_block(obs, p, r, lines).or_else(|| place_block(obs, p, r, lines.get(..1)?))
}

fn place_block(obs: &mut Obstacles, p: Pt, r: f64, lines: &[(f64, f64)]) -> Option<Placed> {
    if lines.is_empty() {
        return None;
    }
    let sizes: Vec<f64> = lines.iter().map(|l| l.0).collect();
    let w = lines.iter().map(|l| l.1).fold(0.0, f64::max);
    let first = sizes[0];
    let last = sizes[sizes.len() - 1];
    let height: f64 = sizes.iter().skip(1).map(|s| s * LINE).sum::<f64>() + first * ASCENT + last * DESCENT;
    let gap = 6.0;
    let (x, y) = p;
    let below = (x, y + r + gap + first * ASCENT, Anchor::Middle);
    let above = (x, y - r - gap - height + first * ASCENT, Anchor::Middle);
    let mid_y = y - height / 2.0 + first * ASCENT;
    let right = (x + r + gap, mid_y, Anchor::Start);
    let left = (x - r - gap, mid_y, Anchor::End);
    let outward_down = y > 500.0 + 1.0 || ((y - 500.0).abs() <= 1.0 && x > 500.0);
    let outward_right = x >= 500.0;
    let order = match (outward_down, outward_right) {
        (true, true) => [below, right, above, left],
        (true, false) => [below, left, above, right],
        (false, true) => [above, right, below, left],
        (false, false) => [above, left, below, right],
    };
    // Crowded (many nodes in a small frame): the corners, then one line further out.
    let d = (r + gap) * std::f64::consts::FRAC_1_SQRT_2;
    let corners = [
        (x + d, y + d + first * ASCENT, Anchor::Start),
        (x - d, y + d + first * ASCENT, Anchor::End),
        (x + d, y - d - height + first * ASCENT, Anchor::Start),
        (x - d, y - d - height + first * ASCENT, Anchor::End),
    ];
    let far = first * LINE;
    let further = order.map(|(cx, cy, a)| match a {
        Anchor::Start => (cx + far, cy, a),
        Anchor::End => (cx - far, cy, a),
        _ if cy > y => (cx, cy + far, a),
        _ => (cx, cy - far, a),
    });
    let own = obs.discs.iter().position(|&(c, _)| c == p);
    for (cx, cy, anchor) in order.into_iter().chain(corners).chain(further) {
        let rect = block(cx, cy, anchor, w, &sizes);
        if obs.free(&rect, own) {
            obs.rects.push(rect);
            return Some(Placed { x: cx, y: cy, anchor, rect, lines: lines.len() });
        }
    }
    None
}

/// A message dot's label: its text at an offset from the dot, and how many messages it stands
/// for (1, or the size of a fold).
#[derive(Clone, Debug, PartialEq)]
pub struct DotLabel {
    pub text: String,
    pub dx: f64,
    pub dy: f64,
    pub anchor: Anchor,
    pub count: usize,
    pub rect: Rect,
}

/// Labels for message dots at `at` with texts `texts` (one per dot, in drawing order): dots
/// whose labels would overlap are folded into one label ("OK×3", or "E32 +2" when the texts
/// differ) on the first of them; each label then goes above, below, right or left of its dot,
/// wherever it covers no node, no dot and no other label. Returns, per dot, its label (if it
/// has one) and the index of the dot whose label it was folded into (itself if not folded).
pub fn dot_labels(
    obs: &mut Obstacles,
    at: &[Pt],
    texts: &[String],
    fs: f64,
    dot_r: f64,
) -> Vec<(Option<DotLabel>, usize)> {
    let n = at.len().min(texts.len());
    // Fold: a dot joins the first earlier cluster whose head lies within one label of it.
    let mut head_of: Vec<usize> = (0..n).collect();
    let mut heads: Vec<usize> = Vec::new();
    for i in 0..n {
        let reach = text_width(&texts[i], fs).max(fs * 2.0);
        let joined = heads.iter().copied().find(|&h| {
            let (dx, dy) = (at[i].0 - at[h].0, at[i].1 - at[h].1);
            dx.abs() < reach.max(text_width(&texts[h], fs)) && dy.abs() < fs * 1.2
        });
        match joined {
            Some(h) => head_of[i] = h,
            None => heads.push(i),
        }
    }
    let dots: Vec<(Pt, f64)> = at.iter().take(n).map(|&p| (p, dot_r + 1.0)).collect();
    let mut out: Vec<(Option<DotLabel>, usize)> = head_of.iter().map(|&h| (None, h)).collect();
    for &h in &heads {
        let members: Vec<usize> = (0..n).filter(|&i| head_of[i] == h).collect();
        let text = match members.len() {
            1 => texts[h].clone(),
            k if members.iter().all(|&i| texts[i] == texts[h]) => format!("{}×{k}", texts[h]),
            k => format!("{} +{}", texts[h], k - 1),
        };
        let w = text_width(&text, fs);
        let (x, y) = at[h];
        let gap = dot_r + 3.0;
        // Above, below, right, left; then the corners; then the same a line farther out.
        let mut candidates = Vec::with_capacity(16);
        for far in [0.0, fs * 1.1] {
            let g = gap + far;
            candidates.extend([
                (0.0, -g - fs * DESCENT, Anchor::Middle),
                (0.0, g + fs * ASCENT, Anchor::Middle),
                (g, fs * 0.32, Anchor::Start),
                (-g, fs * 0.32, Anchor::End),
                (g * 0.7, -g * 0.7 - fs * DESCENT, Anchor::Start),
                (-g * 0.7, -g * 0.7 - fs * DESCENT, Anchor::End),
                (g * 0.7, g * 0.7 + fs * ASCENT, Anchor::Start),
                (-g * 0.7, g * 0.7 + fs * ASCENT, Anchor::End),
            ]);
        }
        for (dx, dy, anchor) in candidates {
            let rect = block(x + dx, y + dy, anchor, w, &[fs]);
            let clear_of_dots = dots.iter().all(|&(c, r)| !rect.hits_disc(c, r));
            if clear_of_dots && obs.free(&rect, None) {
                obs.rects.push(rect);
                out[h].0 = Some(DotLabel { text: text.clone(), dx, dy, anchor, count: members.len(), rect });
                break;
            }
        }
    }
    // A cluster with no free place joins the nearest labelled one close by: that label counts it
    // (its text says so when the longer text still fits; its tooltip lists it in any case).
    for &h in &heads {
        if out[h].0.is_some() {
            continue;
        }
        let near = heads
            .iter()
            .copied()
            .filter(|&g| out[g].0.is_some())
            .map(|g| (g, (at[g].0 - at[h].0).hypot(at[g].1 - at[h].1)))
            .filter(|&(_, d)| d < fs * 6.0)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        let Some((g, _)) = near else { continue };
        for o in out.iter_mut().filter(|o| o.1 == h) {
            o.1 = g;
        }
        let members: Vec<usize> = (0..n).filter(|&i| out[i].1 == g).collect();
        let Some(label) = out[g].0.as_mut() else { continue };
        label.count = members.len();
        let text = match members.len() {
            k if members.iter().all(|&i| texts[i] == texts[g]) => format!("{}×{k}", texts[g]),
            k => format!("{} +{}", texts[g], k - 1),
        };
        let rect = block(at[g].0 + label.dx, at[g].1 + label.dy, label.anchor, text_width(&text, fs), &[fs]);
        let old = label.rect;
        let others =
            Obstacles { discs: obs.discs.clone(), rects: obs.rects.iter().copied().filter(|r| *r != old).collect() };
        if dots.iter().all(|&(c, r)| !rect.hits_disc(c, r)) && others.free(&rect, None) {
            label.text = text;
            label.rect = rect;
            if let Some(r) = obs.rects.iter_mut().find(|r| **r == old) {
                *r = rect;
            }
        }
    }
    out
}

/// Every label of a canvas placed: per node its block (or `None`), per dot its label and fold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub nodes: Vec<Option<Placed>>,
    pub dots: Vec<(Option<DotLabel>, usize)>,
}

/// Places the labels of a frame: first each labelled node's (`show`), clear of every disc,
/// then the dots' at `dot_at` (clear of nodes, dots and node labels), folding those that would
/// pile up into a count. `dot_labels`: whether dots are labelled at all (not when dense);
/// `keep_clear`: boxes no label may cover (the fenced store).
#[allow(clippy::too_many_arguments)]
pub fn layout(
    alg: &election_lab::Algorithm,
    lang: crate::i18n::Lang,
    frame: &election_lab::Frame,
    pos: &[Pt],
    sz: &Sizes,
    show: &dyn Fn(&election_lab::NodeFrame) -> bool,
    dot_at: &[Pt],
    dot_texts: &[String],
    with_dot_labels: bool,
    keep_clear: &[Rect],
) -> (Layout, Obstacles) {
    let n = frame.nodes.len().min(pos.len());
    let mut obs =
        Obstacles { discs: pos.iter().take(n).map(|&p| (p, sz.node_r + 3.0)).collect(), rects: keep_clear.to_vec() };
    let nodes = frame
        .nodes
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, node)| {
            if !show(node) {
                return None;
            }
            let (first, sub) = node_texts(alg, lang, node);
            let mut lines = vec![(sz.view, text_width(&first, sz.view))];
            lines.extend(sub.iter().map(|t| (sz.sub, text_width(t, sz.sub))));
            place_node_label(&mut obs, pos[i], sz.node_r, &lines)
        })
        .collect();
    let dots = if with_dot_labels { dot_labels(&mut obs, dot_at, dot_texts, sz.dot_label, sz.dot_r) } else { vec![] };
    (Layout { nodes, dots }, obs)
}

/// What is written by a node: who it believes leads (or that it crashed), then its protocol
/// details (term and vote, tally, role, ZXID), one line each.
pub fn node_texts(alg: &Algorithm, lang: Lang, node: &NodeFrame) -> (String, Vec<String>) {
    let id = node.id;
    let v = &node.view;
    let leader_text = match (node.up, v.leader) {
        (false, _) => tr(lang, k::UI_CRASHED).to_string(),
        (true, Some(l)) if l == id => tr(lang, k::UI_LEADER).to_string(),
        (true, Some(l)) => format!("→ N{l}"),
        (true, None) => tr(lang, k::UI_NO_LEADER).to_string(),
    };
    let mut sub = Vec::new();
    if node.up && v.paused {
        sub.push(tr(lang, k::UI_NODE_PAUSED).to_string());
    }
    if let Some(t) = v.term {
        let t = v.term_word.map_or_else(|| format!("t{t}"), |w| format!("{} {t}", w.get(lang)));
        sub.push(format!("{t}{}", v.vote.map(|x| format!(" · {} N{x}", tr(lang, k::UI_VOTED))).unwrap_or_default()));
    }
    if let Some((held, need)) = v.tally {
        let word = v.tally_word.map_or_else(|| tr(lang, k::UI_VOTES), |w| w.get(lang));
        sub.push(format!("{word} {held} / {need}"));
    }
    let zxid = v.zxid().map(|z| format!("zxid {z}"));
    if node.up && v.role != "leader" && v.role != "follower" {
        let role = crate::meta::role_label(alg, v.role, lang);
        sub.push(zxid.as_ref().map_or(role.clone(), |z| format!("{role} · {z}")));
    } else if let Some(z) = zxid {
        sub.push(z);
    }
    (leader_text, sub)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_keep_a_minimum_on_screen() {
        // A canvas 300 px wide shows 1000 units in 300 px: 3.33 units per pixel.
        let s = Sizes::new(1000.0 / 300.0, 40.0, false, MIN_TEXT_PX);
        assert!(s.view / s.u >= MIN_TEXT_PX - 1e-9 && s.sub / s.u >= MIN_TEXT_PX - 1e-9);
        assert!(s.dot_label / s.u >= MIN_TEXT_PX - 1e-9);
        assert!(2.0 * s.hit / s.u >= MIN_TARGET_PX - 1e-9 && 2.0 * s.node_r / s.u >= MIN_TARGET_PX - 1e-9);
        // A large canvas keeps the drawing's own sizes.
        let big = Sizes::new(1.0, 40.0, false, MIN_TEXT_PX);
        assert_eq!((big.view, big.node_r, big.dot_r), (20.0, 40.0, 9.0));
        // The presenter view asks for 28 px: every label keeps it on screen.
        let room = Sizes::new(1.2, 40.0, false, 28.0);
        for t in [room.id, room.view, room.sub, room.dot_label] {
            assert!(t / room.u >= 28.0 - 1e-9, "{t} units at {} units per px", room.u);
        }
    }

    #[test]
    fn a_node_label_avoids_a_neighbour() {
        // Two nodes side by side at the bottom: the second's label cannot go under the first.
        let mut obs = Obstacles { discs: vec![((500.0, 900.0), 30.0), ((560.0, 900.0), 30.0)], rects: vec![] };
        let a = place_node_label(&mut obs, (500.0, 900.0), 30.0, &[(20.0, 80.0)]).unwrap();
        let b = place_node_label(&mut obs, (560.0, 900.0), 30.0, &[(20.0, 80.0)]).unwrap();
        assert!(!a.rect.overlaps(&b.rect));
        for (c, r) in &obs.discs {
            assert!(!a.rect.hits_disc(*c, *r) && !b.rect.hits_disc(*c, *r));
        }
    }

    #[test]
    fn labels_that_would_pile_up_fold_into_a_count() {
        let mut obs = Obstacles::default();
        let at = [(300.0, 300.0), (310.0, 302.0), (318.0, 298.0), (700.0, 700.0)];
        let texts: Vec<String> = ["OK", "OK", "OK", "E3"].iter().map(|s| s.to_string()).collect();
        let out = dot_labels(&mut obs, &at, &texts, 15.0, 9.0);
        assert_eq!(out[0].0.as_ref().map(|l| (l.text.as_str(), l.count)), Some(("OK×3", 3)));
        assert!(out[1].0.is_none() && out[2].0.is_none());
        assert_eq!((out[1].1, out[2].1), (0, 0));
        assert_eq!(out[3].0.as_ref().map(|l| l.text.as_str()), Some("E3"));
    }
}

#[cfg(test)]
mod presets {
    //! The worst cases, at every step: Bully with N = 8 ("OKOKOK", "JE"), gossip and
    //! Hirschberg-Sinclair with N = 16 ("P3" + "P32" read "P332"), on a large canvas and in a
    //! 640×420 embed (about 300 px for the drawing: 3.3 units a pixel).
    use super::*;
    use crate::anim::DotPath;
    use crate::components::canvas_parts as parts;
    use crate::i18n::Lang;
    use election_lab::{layout as lay, presets as ps, Engine};

    /// Every step of each preset checked, up to this many (each preset ends well before).
    const MAX_STEPS: usize = 20_000;

    fn check(preset: &str, u: f64, lang: Lang) -> (usize, usize, usize) {
        let p = ps::find(preset).unwrap();
        let mut e = Engine::new(p.scenario()).unwrap();
        let (mut steps, mut dots, mut shown) = (0, 0, 0);
        let alg = e.algorithm();
        loop {
            let frame = e.frame();
            let pos = crate::state::positions(e.scenario(), &frame);
            let sz = Sizes::new(u, lay::node_radius(frame.nodes.len()), false, MIN_TEXT_PX);
            let index = |id: u32| frame.nodes.iter().position(|n| n.id == id);
            let mut at = Vec::new();
            let mut texts = Vec::new();
            for m in &frame.messages {
                let (Some(f), Some(t)) = (index(m.from), index(m.to)) else { continue };
                let (a, b) = parts::lane(parts::edge(pos[f], pos[t], sz.node_r));
                at.push(DotPath { a, b, sent: m.sent as f64, deliver: m.deliver as f64 }.at(frame.time as f64 + 0.5));
                texts.push(parts::dot_label(alg, m));
            }
            // As the canvas does: labels keep clear of the lease bars and the store's box.
            let mut keep = crate::components::lease_bars::areas(&frame, &pos, sz.node_r);
            let bars = keep.len();
            keep.extend(crate::components::store::area(&frame, &pos, u));
            let (out, obs) = layout(alg, lang, &frame, &pos, &sz, &|_| true, &at, &texts, true, &keep);
            // No lease bar covers a node or another bar.
            for (i, b) in keep[..bars].iter().enumerate() {
                for o in &keep[i + 1..bars] {
                    assert!(!b.overlaps(o), "{preset} step {}: lease bars {b:?} and {o:?} overlap", frame.step);
                }
                for (k, &p) in pos.iter().enumerate() {
                    let id = frame.nodes[k].id;
                    assert!(!b.hits_disc(p, sz.node_r), "{preset} step {}: a lease bar covers node {id}", frame.step);
                }
            }
            // No label covers a node, a dot, or another label.
            let rects: Vec<Rect> = out
                .nodes
                .iter()
                .flatten()
                .map(|p| p.rect)
                .chain(out.dots.iter().filter_map(|d| d.0.as_ref().map(|l| l.rect)))
                .collect();
            // Every node keeps its label, at least its first line, on the page's own scale and in
            // an embed of up to 12 nodes. (A 16-node ring in a 640×420 embed has no room for
            // every "no leader": some stay in the node's tooltip and accessible name.)
            let crowded = u > 1.0 && frame.nodes.len() > 12;
            for (k, placed) in out.nodes.iter().enumerate().filter(|_| !crowded) {
                let id = frame.nodes[k].id;
                assert!(placed.is_some(), "{preset} step {}: node {id} has no label", frame.step);
            }
            assert_eq!(rects.len() + keep.len(), obs.rects.len());
            for (i, a) in rects.iter().enumerate() {
                for k in &keep {
                    assert!(
                        !a.overlaps(k),
                        "{preset} step {}: label {a:?} lies on a bar or the store {k:?}",
                        frame.step
                    );
                }
                for b in &rects[i + 1..] {
                    assert!(!a.overlaps(b), "{preset} step {}: labels {a:?} and {b:?} overlap", frame.step);
                }
                for (k, &p) in pos.iter().enumerate() {
                    assert!(
                        !a.hits_disc(p, sz.node_r),
                        "{preset} step {}: a label covers node {}",
                        frame.step,
                        frame.nodes[k].id
                    );
                }
                for &d in &at {
                    let own = out.dots.iter().any(|x| x.0.as_ref().is_some_and(|l| &l.rect == a));
                    assert!(
                        !a.hits_disc(d, sz.dot_r) || !own,
                        "{preset} step {}: a dot label covers a dot",
                        frame.step
                    );
                }
            }
            // Every dot is labelled or counted in a label near it.
            for (k, (label, head)) in out.dots.iter().enumerate() {
                dots += 1;
                if label.is_some() || (*head != k && out.dots[*head].0.is_some()) {
                    shown += 1;
                }
            }
            steps += 1;
            if steps > MAX_STEPS || !e.step() {
                break;
            }
        }
        (steps, dots, shown)
    }

    #[test]
    fn labels_overlap_no_node_and_no_other_label() {
        for preset in [
            "bully-worst-8",
            "gossip-16",
            "split-brain-gossip",
            "hs-phases-16",
            "hs-all",
            "lease-drift",
            "lease-takeover",
            "lease-partition",
            "fencing-tokens",
            "dht-crash",
            "dht-split-brain",
        ] {
            for (u, lang) in [(1.0, Lang::En), (1000.0 / 300.0, Lang::Zh), (1000.0 / 300.0, Lang::En)] {
                let (steps, dots, shown) = check(preset, u, lang);
                eprintln!("{preset} at {u:.1} units/px ({lang:?}): {shown} of {dots} dots labelled or counted over {steps} steps");
                assert!(steps > 10, "{preset}: {steps} steps");
                // Most dots are labelled or counted (the rest are listed in their tooltips).
                assert!(shown * 10 >= dots * 7, "{preset} at {u:.1} units/px: {shown} of {dots} dots labelled");
            }
        }
    }
}
