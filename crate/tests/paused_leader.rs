//! A frozen leader (the committed `etcd --freeze` run: SIGSTOP, then SIGCONT once the others
//! elected) is no acting leader while paused: the monitors count the leaders that act, so the
//! frozen one beside the new leader is the stale-leader story, not a split brain; if it resumes
//! still believing it leads, it acts again and is counted again. What is counted is what happens:
//! at every step the counted leaders are exactly the live members that lead and are not paused,
//! and a split brain is reported exactly when two of them lead at once.

use election_lab::observe::SPLIT_BRAIN;
use election_lab::protocols::events::mapping::Mapping;
use election_lab::protocols::recorded::LogFile;

mod common;
use common::{engine, real_logs};

#[test]
fn a_paused_leader_is_not_counted_until_it_acts_again() {
    let files = real_logs("etcd-zap-freeze");
    let logs: Vec<LogFile> = files.iter().map(|(name, text)| LogFile { name, text }).collect();
    let imp = Mapping::read(Mapping::shipped("etcd").unwrap()).unwrap().import(&logs).unwrap();
    let mut e = engine(&imp.scenario);
    let (mut paused_beside_leader, mut most_acting) = (false, 0);
    loop {
        let f = e.frame();
        let acting: Vec<u32> =
            f.nodes.iter().filter(|n| n.up && n.view.is_leader() && !n.view.paused).map(|n| n.id).collect();
        assert_eq!(f.leaders, acting, "step {}", f.step);
        let paused = f.nodes.iter().any(|n| n.up && n.view.is_leader() && n.view.paused);
        paused_beside_leader |= paused && acting.len() == 1;
        most_acting = most_acting.max(acting.len());
        let split = e.violations().iter().filter(|v| v.kind == SPLIT_BRAIN).count();
        assert_eq!(split > 0, most_acting >= 2, "step {}: {:?}", f.step, e.violations());
        if !e.step() {
            break;
        }
    }
    assert!(paused_beside_leader, "the frozen leader is paused while another leads: {}", imp.report.text());
    assert_eq!(e.frame().leaders.len(), 1);
}
