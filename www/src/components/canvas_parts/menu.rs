//! The canvas's partition lines (each with its ✕ to remove it) and the node menu.

use super::*;

/// The user's partition lines: a wide invisible hit line to drag, the dashed line, a ✕ to remove.
pub fn cut_lines(
    lines: &[Line],
    sz: &Sizes,
    lang: Lang,
    on_down: &Callback<(usize, PointerEvent)>,
    on_remove: &Callback<usize>,
) -> Vec<Html> {
    lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let (a, b) = geometry::clip_to(l, geometry::FAR.0, geometry::FAR.1)?;
            let ondown = on_down.reform(move |e: PointerEvent| (i, e));
            let ondbl = on_remove.reform(move |_: MouseEvent| i);
            let (mx, my) = ((l[0] + l[2]) as f64 / 2.0, (l[1] + l[3]) as f64 / 2.0);
            let onremove = on_remove.reform(move |e: MouseEvent| {
                e.stop_propagation();
                i
            });
            let onkey = {
                let on_remove = on_remove.clone();
                Callback::from(move |e: KeyboardEvent| {
                    if e.key() == "Enter" {
                        e.stop_propagation();
                        on_remove.emit(i);
                    }
                })
            };
            Some(html! {
                <g class="cut" data-partition={i.to_string()}>
                    <line class="cut-hit" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} onpointerdown={ondown} ondblclick={ondbl} />
                    <line class="cut-line" x1={fmt(a.0)} y1={fmt(a.1)} x2={fmt(b.0)} y2={fmt(b.1)} />
                    <g class="cut-remove" role="button" aria-label={format!("{} {}", tr(lang, k::UI_REMOVE_PARTITION_LINE), i + 1)} tabindex="0"
                       onclick={onremove} onkeydown={onkey} onpointerdown={Callback::from(|e: PointerEvent| e.stop_propagation())}
                       transform={format!("translate({mx:.0} {my:.0})")}>
                        <circle r={fmt(sz.hit.max(16.0))} />
                        <text y={fmt(sz.sub * 0.35)} text-anchor="middle" style={format!("font-size:{:.1}px", sz.sub)}>{"✕"}</text>
                    </g>
                </g>
            })
        })
        .collect()
}

/// The action menu next to a node. It takes the focus when it opens (the canvas does that);
/// ↑/↓ (and Home/End) move between its items, Enter or Space acts, Escape closes it and gives
/// the focus back to the node.
#[allow(clippy::too_many_arguments)]
pub fn node_menu(
    node: &NodeFrame,
    (x, y): Pt,
    r: f64,
    lang: Lang,
    chosen: bool,
    on_act: &Callback<Intervention>,
    on_node: &Callback<NodeGesture>,
    on_close: &Callback<()>,
) -> Html {
    let id = node.id;
    let up = node.up;
    let crash = if up { tr(lang, k::UI_CRASH) } else { tr(lang, k::UI_RECOVER) };
    let items: Vec<(&str, bool, Callback<MouseEvent>)> = vec![
        (crash, true, on_act.reform(move |_| if up { Intervention::Crash(id) } else { Intervention::Recover(id) })),
        (tr(lang, k::UI_START_ELECTION_HERE), up, on_act.reform(move |_| Intervention::Start(id))),
        (tr(lang, k::UI_ISOLATE), up, on_act.reform(move |_| Intervention::Isolate(id))),
        (
            if chosen {
                tr(lang, k::UI_TAKE_OFF_THE_PARTITION_SIDE)
            } else {
                tr(lang, k::UI_CHOOSE_FOR_A_PARTITION_SIDE)
            },
            true,
            on_node.reform(move |_| NodeGesture::Side(id)),
        ),
    ];
    let (mx, my) = ((x + r + 8.0).min(640.0), (y - 20.0).clamp(10.0, 800.0));
    let style = format!("left: {:.1}%; top: {:.1}%", mx / 10.0, my / 10.0);
    let onkeydown = {
        let on_close = on_close.clone();
        Callback::from(move |e: KeyboardEvent| {
            let key = e.key();
            // Yew delegates events, so the current target is the page's root: find the menu
            // from the element the key was pressed on.
            let Some(menu) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|t| t.closest(".node-menu").ok().flatten())
            else {
                return;
            };
            let focus_node = |menu: &web_sys::Element| {
                let wrap = menu.parent_element();
                if let Some(n) = wrap.and_then(|w| w.query_selector(&format!("[data-node=\"{id}\"]")).ok().flatten()) {
                    let _ = n.unchecked_into::<web_sys::HtmlElement>().focus();
                }
            };
            match key.as_str() {
                "ArrowDown" | "ArrowUp" | "Home" | "End" => {
                    e.prevent_default();
                    e.stop_propagation();
                    let Ok(items) = menu.query_selector_all("button:not([disabled])") else { return };
                    let n = items.length();
                    if n == 0 {
                        return;
                    }
                    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
                    let at = (0..n).find(|&k| {
                        items.item(k).is_some_and(|it| active.as_ref().is_some_and(|a| a.is_same_node(Some(&it))))
                    });
                    let next = match (key.as_str(), at) {
                        ("Home", _) | ("ArrowDown", None) => 0,
                        ("End", _) | (_, None) => n - 1,
                        ("ArrowDown", Some(k)) => (k + 1) % n,
                        (_, Some(k)) => (k + n - 1) % n,
                    };
                    if let Some(it) = items.item(next) {
                        let _ = it.unchecked_into::<web_sys::HtmlElement>().focus();
                    }
                }
                "Escape" => {
                    e.prevent_default();
                    e.stop_propagation();
                    focus_node(&menu);
                    on_close.emit(());
                }
                // Keys meant for the menu's buttons stay there (Space would play the run).
                " " | "Enter" | "ArrowLeft" | "ArrowRight" => e.stop_propagation(),
                _ => {}
            }
        })
    };
    html! {
        <div class="node-menu" role="menu" aria-label={format!("{} N{id}", tr(lang, k::UI_ACTIONS_FOR))} {style} {onkeydown}>
            <div class="menu-title" aria-hidden="true">{ format!("N{id}") }</div>
            { for items.into_iter().map(|(text, enabled, cb)| {
                html!{ <button role="menuitem" onclick={cb} disabled={!enabled}>{ text }</button> }
            }) }
            <button role="menuitem" onclick={on_close.reform(|_: MouseEvent| ())}>{ tr(lang, k::UI_CLOSE) }</button>
        </div>
    }
}
