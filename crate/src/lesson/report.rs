//! A lesson's stops and checked answers as plain text, for lecturers authoring lessons
//! (`election-lab lesson check FILE|ID`) and for the course's tests.

use super::{Checked, Lesson, StopResult};
use crate::error::ScenarioError;
use crate::meta::Lang;

/// One line per stop: its index, step and time, its question's check and answer (or
/// `deferred` for heavy questions not computed), its act's condition; then the challenge.
pub fn report(lesson: &Lesson, heavy: bool) -> Result<String, ScenarioError> {
    let results = super::answers(lesson, heavy)?;
    Ok(render(lesson, &results, Lang::En))
}

/// [`report`] from results already computed, with captions in `lang`.
pub fn render(lesson: &Lesson, results: &[StopResult], lang: Lang) -> String {
    let mut out = format!("lesson {}: {}\n", lesson.id, lesson.title.get(lang));
    for (i, (stop, r)) in lesson.stops.iter().zip(results).enumerate() {
        out.push_str(&format!("  stops[{i}] step {} t={}", r.step, r.time));
        if let Some(q) = &stop.question {
            let answer = match &r.checked {
                Some(Checked::Answer(a)) => a.text(),
                _ => "deferred (heavy: computed on demand)".to_string(),
            };
            let scaled = q.resize.map_or(String::new(), |n| format!(" at N = {n}"));
            out.push_str(&format!(": {}{scaled} = {answer}", q.check.name()));
        }
        if let Some(a) = &stop.act {
            out.push_str(&format!(": act until {}", a.until));
        }
        out.push('\n');
    }
    if let Some(c) = &lesson.challenge {
        out.push_str(&format!("  challenge: break {}{}\n", c.property, if c.search { " (hint: search)" } else { "" }));
    }
    out
}
