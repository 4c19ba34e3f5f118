//! The experiments view's table of runs: one row per run (those with violations first), each
//! with a button that opens that very run in the lab — replayed from its line, seed and faults
//! (the replay columns), at its first violation if it has one, else where the sweep stopped it.

use crate::i18n::{tr, Lang};
use crate::state::Action;
use election_lab::experiment::Sweep;
use election_lab::meta::k;
use std::rc::Rc;
use yew::prelude::*;

/// At most this many runs are listed (the CSV of every run has them all).
pub const SHOWN: usize = 40;

/// The trace that opens run `k` of `sweep` in the lab: at its first violation, or at its end.
pub fn trace_of(sweep: &Sweep, k: u64) -> Option<String> {
    let e = sweep.replay(k)?;
    let mut v = e.trace_value();
    if let Some(first) = e.violations().first() {
        v["step"] = first.step.into();
    }
    Some(v.to_string())
}

/// The table, for a finished sweep.
pub fn runs_table(sweep: &Rc<Sweep>, l: Lang, on: &Callback<Action>) -> Html {
    let s = sweep;
    let mut rows: Vec<_> = s.rows().iter().collect();
    // Runs that broke a property first: those are the ones to look at.
    election_lab::sort::sort_by_key(&mut rows, |r| (r.violations == 0, r.run));
    let total = rows.len();
    rows.truncate(SHOWN);
    let body = rows.iter().map(|r| {
        let k = r.run;
        let open = {
            let (sweep, on) = (sweep.clone(), on.clone());
            Callback::from(move |_: MouseEvent| {
                if let Some(text) = trace_of(&sweep, k) {
                    on.emit(Action::OpenRun(text));
                }
            })
        };
        let line = s.lines().get(r.line).map_or(String::new(), |x| x.label.get(l).to_string());
        let label = match r.violations {
            0 => tr(l, k::UI_OPEN_THIS_RUN_IN_THE),
            _ => tr(l, k::UI_OPEN_THIS_RUN_IN_THE_2),
        };
        html! {
            <tr data-run={k.to_string()} data-violations={r.violations.to_string()}>
                <td class="num">{ k }</td>
                <td>{ line }</td>
                <td class="num">{ r.nodes }</td>
                <td class="num">{ r.seed }</td>
                <td class={classes!("num", (r.violations > 0).then_some("bad"))}>{ r.violations }</td>
                <td class="faults">{ r.faults.clone() }</td>
                <td><button onclick={open} data-testid="open-run" aria-label={format!("{label} ({} {k})", tr(l, k::UI_RUN_2))} title={label}>
                    { tr(l, k::UI_OPEN) }</button></td>
            </tr>
        }
    });
    let caption = format!(
        "{} {} / {total}{}",
        tr(l, k::UI_RUNS_THOSE_WITH_VIOLATIONS_FIRST),
        total.min(SHOWN),
        tr(l, k::UI_EACH_OPENS_IN_THE_LAB)
    );
    html! {
        <div class="exp-table">
            <table data-testid="experiment-runs">
                <caption>{ caption }</caption>
                <thead><tr>
                    <th scope="col">{ tr(l, k::UI_RUN) }</th>
                    <th scope="col">{ tr(l, k::UI_LINE) }</th>
                    <th scope="col">{"N"}</th>
                    <th scope="col">{ tr(l, k::UI_SEED) }</th>
                    <th scope="col">{ tr(l, k::UI_VIOLATIONS_2) }</th>
                    <th scope="col">{ tr(l, k::UI_FAULTS) }</th>
                    <th scope="col"><span class="sr-only">{ tr(l, k::UI_OPEN) }</span></th>
                </tr></thead>
                <tbody>{ for body }</tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::State;
    use yew::Reducible;

    #[test]
    fn a_row_opens_its_run_in_the_lab_at_its_first_violation() {
        let spec = crate::state::experiments::spec_of("split-brain-random-partitions");
        let mut sweep = crate::state::experiments::plan(spec, "2", Lang::En).expect("plans");
        while !sweep.advance(8).finished() {}
        let row = sweep.rows().iter().find(|r| r.violations > 0).expect("a split brain among the runs").clone();
        let text = trace_of(&sweep, row.run).expect("replays");
        let s = Rc::new(State::open("")).reduce(Action::ToggleExperiments).reduce(Action::OpenRun(text));
        assert!(s.experiments().is_none(), "back in the lab");
        assert!(s.messages.alert.is_none(), "{:?}", s.messages.alert);
        let e = s.engine.get();
        // The very run: its seed, its faults' hash at the end, and the cursor at its violation.
        assert_eq!(e.scenario().seed, row.seed);
        let first = e.all_violations().first().expect("the violation").clone();
        assert_eq!(e.cursor(), first.step);
        assert_eq!(e.violations().len(), 1, "at the first violation, not past it");
        // Run on to where the sweep stopped it: the same trace as the row's.
        let mut end = election_lab::Engine::from_trace_value(&e.trace_value()).unwrap();
        end.seek(row.steps);
        assert_eq!(end.trace_hash(), row.trace_hash);
    }
}
