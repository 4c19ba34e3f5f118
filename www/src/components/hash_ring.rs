//! The hash ring of consistent-hashing algorithms (`Decoration::HashRing`): nodes placed round the circle
//! in the order of their hash positions, the key marked where it falls between them, and an arc
//! from the key clockwise to every node that believes it leads.
//!
//! Where the nodes and the key stand on the ring is `crate::placement`'s business.

use super::fmt;
use crate::i18n::{tr, Lang};
use crate::placement::{angles, point};
use election_lab::meta::k;
use election_lab::{layout, Frame};
use yew::prelude::*;

/// The ring, the key, and an arc from the key clockwise to each live node that believes it
/// leads (one inside the other when there are several, shortest outermost).
pub fn draw(frame: &Frame, lang: Lang) -> Html {
    let Some((a, key)) = angles(frame) else { return html! {} };
    let n = frame.nodes.len();
    let radius = layout::radius(n);
    let mut leaders: Vec<(u32, f64)> = frame
        .nodes
        .iter()
        .zip(&a)
        .filter(|(nd, _)| nd.up && nd.view.is_leader())
        .map(|(nd, &to)| (nd.id, (to - key).rem_euclid(360.0)))
        .collect();
    election_lab::sort::sort_by(&mut leaders, |x, y| x.1.total_cmp(&y.1));
    let inner = radius * (0.86 - 0.07 * leaders.len().saturating_sub(1) as f64);
    let arcs = leaders.iter().enumerate().map(|(k, &(id, sweep))| {
        let r = radius * (0.86 - 0.07 * k as f64);
        let (x0, y0) = point(key, r);
        let (x1, y1) = point(key + sweep, r);
        let large = u8::from(sweep > 180.0);
        html! { <path class="key-arc" data-arc-to={id.to_string()} d={format!("M{x0:.1} {y0:.1} A{r:.1} {r:.1} 0 {large} 1 {x1:.1} {y1:.1}")} /> }
    });
    let (kx, ky) = point(key, radius);
    let (sx, sy) = point(key, inner);
    let (lx, ly) = point(key, radius + 34.0);
    let d = 14.0;
    html! {
        <g class="hash-ring">
            <circle class="ring-line" cx={fmt(layout::CENTRE)} cy={fmt(layout::CENTRE)} r={fmt(radius)} />
            { if leaders.is_empty() { html!{} } else { html!{ <line class="key-spoke" x1={fmt(kx)} y1={fmt(ky)} x2={fmt(sx)} y2={fmt(sy)} /> } } }
            { for arcs }
            <path class="ring-key" d={format!("M{kx:.1} {:.1}L{:.1} {ky:.1}L{kx:.1} {:.1}L{:.1} {ky:.1}Z", ky - d, kx + d, ky + d, kx - d)}>
                <title>{ tr(lang, k::UI_THE_KEY_THE_FIRST_NODE) }</title>
            </path>
            <text class="ring-key-label" x={fmt(lx)} y={fmt(ly)} text-anchor="middle" dominant-baseline="central">{ tr(lang, k::UI_KEY) }</text>
        </g>
    }
}

#[cfg(test)]
mod tests {
    use super::angles;
    use election_lab::{Engine, Scenario};
    use serde_json::json;

    fn frame(nodes: &[u32], key: serde_json::Value) -> election_lab::Frame {
        let v = json!({"algorithm": "dht", "nodes": nodes, "params": {"key": key}});
        Engine::new(Scenario::from_value(&v).unwrap()).unwrap().frame()
    }

    #[test]
    fn nodes_keep_their_clockwise_order_apart_and_the_key_stays_before_its_successor() {
        for n in [2u32, 3, 5, 8, 16, 40] {
            let ids: Vec<u32> = (1..=n).collect();
            let f = frame(&ids, json!("election"));
            let (a, key) = angles(&f).unwrap();
            let true_order = {
                let mut o: Vec<usize> = (0..ids.len()).collect();
                o.sort_unstable_by_key(|&i| f.nodes[i].view.hash_ring().unwrap().0);
                o
            };
            let drawn: Vec<f64> = true_order.iter().map(|&i| a[i]).collect();
            for w in drawn.windows(2) {
                assert!(w[1] > w[0], "N = {n}: clockwise order kept");
            }
            assert!(drawn[n as usize - 1] - drawn[0] < 360.0, "N = {n}");
            // The leader is the first drawn node clockwise from the drawn key.
            let leader = f.leaders[0];
            let li = f.nodes.iter().position(|x| x.id == leader).unwrap();
            let first = (0..ids.len())
                .min_by(|&x, &y| (a[x] - key).rem_euclid(360.0).total_cmp(&(a[y] - key).rem_euclid(360.0)))
                .unwrap();
            assert_eq!(first, li, "N = {n}: the drawing shows the key's successor first clockwise");
            if n <= 16 {
                let min_gap = drawn
                    .windows(2)
                    .map(|w| w[1] - w[0])
                    .chain([drawn[0] + 360.0 - drawn[n as usize - 1]])
                    .fold(360.0, f64::min);
                assert!(min_gap >= (360.0 / n as f64).min(14.0) - 1e-9, "N = {n}: discs apart ({min_gap:.1}°)");
            }
        }
    }

    #[test]
    fn a_key_on_a_node_is_drawn_just_before_it_and_clear_of_its_disc() {
        // Key 4 hashes exactly onto N4 (drawn between N5 and N4, clockwise).
        let f = frame(&[1, 2, 3, 4, 5], json!(4));
        assert_eq!(f.leaders, vec![4]);
        let (a, key) = angles(&f).unwrap();
        assert!(key < a[3] - 5.0 && key > a[4] + 5.0, "key {key:.1}° between N5 {:.1}° and N4 {:.1}°", a[4], a[3]);
    }
}
