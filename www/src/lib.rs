//! Election Lab in the browser: a thin Yew layer over the engine crate.

use election_lab::layout;
use election_lab::{presets, Action, Engine};
use yew::prelude::*;

pub struct Lab {
    engine: Engine,
}

pub enum Msg {
    ToggleNode(u32),
}

impl Component for Lab {
    type Message = Msg;
    type Properties = ();

    fn create(_ctx: &Context<Self>) -> Self {
        let preset = presets::find(presets::DEFAULT).expect("default preset");
        Lab { engine: Engine::new(preset.scenario()).expect("valid preset") }
    }

    fn update(&mut self, _ctx: &Context<Self>, msg: Msg) -> bool {
        match msg {
            Msg::ToggleNode(id) => {
                let up = self.engine.frame().nodes.iter().any(|n| n.id == id && n.up);
                let action = if up { Action::Crash(id) } else { Action::Recover(id) };
                self.engine.apply(action).is_ok()
            }
        }
    }

    fn view(&self, ctx: &Context<Self>) -> Html {
        let frame = self.engine.frame();
        let n = frame.nodes.len();
        let r = layout::node_radius(n);
        let nodes = frame.nodes.iter().enumerate().map(|(i, node)| {
            let (x, y) = layout::position(i, n);
            let id = node.id;
            let onclick = ctx.link().callback(move |_| Msg::ToggleNode(id));
            let status = if node.up { "up" } else { "crashed" };
            html! {
                <g class={classes!("node", status)} data-node={id.to_string()} data-status={status}
                   data-role={node.view.role} {onclick} role="button" tabindex="0"
                   aria-label={format!("Node {id}, {status}")}>
                    <circle cx={x.to_string()} cy={y.to_string()} r={r.to_string()} />
                    <text x={x.to_string()} y={y.to_string()} text-anchor="middle" dominant-baseline="central">{format!("N{id}")}</text>
                </g>
            }
        });
        html! {
            <main>
                <h1>{"Election Lab"}</h1>
                <svg viewBox="0 0 1000 1000" width="600" height="600">{ for nodes }</svg>
            </main>
        }
    }
}

pub fn start() {
    yew::Renderer::<Lab>::new().render();
}

/// Mounts the app inside `root` (used by the browser tests).
pub fn mount(root: web_sys::Element) {
    yew::Renderer::<Lab>::with_root(root).render();
}

/// Trace hashes of the presets, shared by the native and the wasm test so both must agree.
pub mod golden {
    use election_lab::{presets, Engine};

    /// Runs preset `id` to its end and returns its trace hash in hex.
    pub fn preset_hash(id: &str) -> String {
        let mut engine = Engine::new(presets::find(id).expect("preset").scenario()).expect("valid");
        engine.run_to_end();
        format!("{:016x}", engine.trace_hash())
    }

    /// Lines of `preset-id hash`.
    pub fn parse(text: &str) -> Vec<(String, String)> {
        text.lines()
            .filter_map(|l| {
                let mut it = l.split_whitespace();
                Some((it.next()?.to_string(), it.next()?.to_string()))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn native_hashes_match_the_golden_table() {
        let table = super::golden::parse(include_str!("../tests/golden.txt"));
        assert_eq!(table.len(), election_lab::presets::PRESETS.len(), "every preset has a golden hash");
        for (id, expected) in table {
            assert_eq!(super::golden::preset_hash(&id), expected, "preset {id}: replays changed (update tests/golden.txt only on purpose)");
        }
    }
}
