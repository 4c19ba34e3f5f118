//! Real clusters' logs in the page: several files at once (the Import… picker or a drop), their
//! kind detected (etcd or ZooKeeper), opened as a recorded run; and "Replay in the simulator",
//! which opens compare lanes with the recorded run and its textbook model on one clock. The
//! page's texts of this feature are here, in one place.

use super::State;
use crate::i18n::{tr, Lang};
use election_lab::protocols::recorded::{self, LogFile};
use election_lab::{registry, Engine};

/// Button and hint texts of the feature.
pub fn replay_label(l: Lang) -> &'static str {
    tr(l, "Replay in the simulator", "在模拟器中重放")
}

pub fn replay_title(l: Lang) -> &'static str {
    tr(
        l,
        "The textbook algorithm on the same members, with the same faults at the same times and the real timeouts, beside the real run",
        "在相同成员上以相同时刻的相同故障和真实超时运行教科书算法，与真实运行并排显示",
    )
}

pub fn import_title(l: Lang) -> &'static str {
    tr(
        l,
        "Import a scenario or trace (JSON), or the logs of a real etcd or ZooKeeper cluster (several files at once; you can also drop them on the page)",
        "导入场景或轨迹（JSON），或真实 etcd / ZooKeeper 集群的日志（可一次选多个文件，也可拖放到页面上）",
    )
}

impl State {
    /// Several files: one JSON scenario or trace is imported as before; logs are read by the
    /// importer of their kind.
    pub(super) fn import_files(&mut self, files: Vec<(String, String)>) -> bool {
        let lang = self.lang;
        if files.len() == 1 && files[0].1.trim_start().starts_with('{') && recorded::detect(&as_logs(&files)).is_none()
        {
            let text = files.into_iter().next().map(|f| f.1).unwrap_or_default();
            return self.reduce_import(text);
        }
        let logs = as_logs(&files);
        let result = match recorded::detect(&logs) {
            None => Err(tr(
                lang,
                "these files are neither a scenario nor an etcd or ZooKeeper log",
                "这些文件既不是场景，也不是 etcd 或 ZooKeeper 日志",
            )
            .to_string()),
            Some(source) => (source.import)(&logs).and_then(|imp| {
                let e = Engine::from_trace_value(&imp.scenario).map_err(|e| e.to_string())?;
                Ok((source, imp.report, e))
            }),
        };
        let mut summary = String::new();
        let result = result.map(|(source, report, e)| {
            summary = match lang {
                Lang::En => format!(
                    "Imported {} {} log file(s): {} messages matched send → receive, {} lines skipped, {} damaged{}.",
                    files.len(),
                    source.name,
                    report.matched,
                    report.skipped,
                    report.damaged.len(),
                    report.damaged.first().map(|d| format!(" (first: {d})")).unwrap_or_default()
                ),
                Lang::Zh => format!(
                    "已导入 {} 个 {} 日志文件：{} 条消息已配对（发送 → 接收），跳过 {} 行，损坏 {} 行{}。",
                    files.len(),
                    source.name,
                    report.matched,
                    report.skipped,
                    report.damaged.len(),
                    report.damaged.first().map(|d| format!("（第一个：{d}）")).unwrap_or_default()
                ),
            };
            e
        });
        let ok = self.load(result, None, |e| match lang {
            Lang::En => format!("Import failed, nothing changed: {e}"),
            Lang::Zh => format!("导入失败，未做任何更改：{e}"),
        });
        if ok {
            self.alert = None;
            self.notice = Some(summary);
        }
        ok
    }

    /// Compare lanes: the recorded run and the textbook algorithm its system implements.
    pub(super) fn replay_model(&mut self) -> bool {
        let id = self.scenario.algorithm.clone();
        let (Some(source), Some(real)) = (recorded::source_of(&id), registry::find(&id)) else {
            return false;
        };
        let Some(model) = registry::find(source.model) else { return false };
        self.compare = None;
        self.open_compare(vec![real, model])
    }
}

fn as_logs(files: &[(String, String)]) -> Vec<LogFile<'_>> {
    files.iter().map(|(name, text)| LogFile { name, text }).collect()
}
