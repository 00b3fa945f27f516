//! What a command ran inside: `data.sandbox` and the sentence for the notice.

use serde_json::{json, Value};

use super::{Layer, Missing, Mode, Request};
use crate::notice::Unprotected;

/// One protection as it held for a run.
#[derive(Debug, Clone)]
pub struct Protection {
    pub active: bool,
    /// The mechanisms that carried it, when active.
    pub by: Vec<Layer>,
    /// Why not, when inactive.
    pub why: Option<Unprotected>,
}

impl Protection {
    fn to_json(&self) -> Value {
        let mut value = json!({"active": self.active});
        if self.active {
            value["by"] = self.by.iter().map(|l| l.as_str()).collect::<Vec<_>>().into();
        }
        if let Some(why) = &self.why {
            value["why"] = why.to_string().into();
        }
        value
    }
}

/// Which protections held for one command.
#[derive(Debug, Clone)]
pub struct Report {
    pub mode: Mode,
    pub filesystem: Protection,
    pub network: Protection,
    pub state: Protection,
    /// Root's capabilities and the calls that reach past path rules (file handles, device
    /// nodes, terminal injection, BPF, the keyring, tracing).
    pub privileges: Protection,
    /// The command's own PID namespace: nothing it starts outlives it.
    pub processes: Protection,
    pub writable: Vec<String>,
}

/// Why a protection was not asked for, when a grant or the policy lifted it.
#[derive(Debug, Clone, Default)]
pub struct Lifted {
    pub filesystem: Option<Unprotected>,
    pub network: Option<Unprotected>,
}

/// Why the layers `needed` are missing, from what was found missing, or that they are not
/// available here.
fn missing_why(missing: &[Missing], needed: &[Layer]) -> Unprotected {
    Unprotected::Missing(
        missing
            .iter()
            .filter(|m| needed.contains(&m.layer))
            .map(|m| (m.layer.as_str(), m.reason.clone()))
            .collect(),
    )
}

/// One protection: not asked because `lift` lifted it, held by the layers `by`, or missing
/// for the reasons `missing` gives for the layers it `needed`.
fn protection(
    asked: bool,
    by: Vec<Layer>,
    lift: Option<Unprotected>,
    missing: &[Missing],
    needed: &[Layer],
) -> Protection {
    if let Some(why) = lift.filter(|_| !asked) {
        return Protection {
            active: false,
            by: Vec::new(),
            why: Some(why),
        };
    }
    if by.is_empty() {
        return Protection {
            active: false,
            by,
            why: Some(missing_why(missing, needed)),
        };
    }
    Protection {
        active: true,
        by,
        why: None,
    }
}

impl Report {
    /// Builds the report from what was asked, what was entered and what was missing.
    pub fn new(
        mode: Mode,
        request: &Request,
        entered: &[Layer],
        missing: &[Missing],
        lifted: &Lifted,
        writable: Vec<String>,
    ) -> Report {
        let has = |layer| entered.contains(&layer);
        let off = |lift: &Option<Unprotected>| match mode {
            Mode::Off => Some(Unprotected::SandboxOff),
            _ => lift.clone(),
        };
        let protection = |asked: bool, by: Vec<Layer>, lift: Option<Unprotected>, needed: &[Layer]| {
            protection(asked, by, lift, missing, needed)
        };
        let filesystem_by: Vec<Layer> = [Layer::Landlock, Layer::Mounts]
            .into_iter()
            .filter(|&l| has(l) && request.filesystem)
            .collect();
        let filesystem = protection(
            request.filesystem,
            filesystem_by,
            off(&lifted.filesystem),
            &[Layer::Landlock, Layer::Mounts],
        );
        let network_by: Vec<Layer> = [Layer::Seccomp]
            .into_iter()
            .filter(|&l| has(l) && request.block_network)
            .collect();
        let network = protection(
            request.block_network,
            network_by,
            off(&lifted.network),
            &[Layer::Seccomp],
        );
        // The read-only binds hold only where nothing inside can unmount them: Landlock or the
        // seccomp filter forbid it, and without either only a non-root user namespace does.
        let unmount_barred = has(Layer::Landlock) || has(Layer::Seccomp) || unsafe { libc::geteuid() } != 0;
        let state_by: Vec<Layer> = [Layer::Mounts]
            .into_iter()
            .filter(|&l| has(l) && request.state && unmount_barred)
            .collect();
        let state = protection(request.state, state_by, off(&lifted.filesystem), &[Layer::Mounts]);
        let privileges_by: Vec<Layer> = [Layer::Capabilities, Layer::Seccomp]
            .into_iter()
            .filter(|&l| has(l) && request.filesystem)
            .collect();
        let privileges = protection(
            request.filesystem,
            privileges_by,
            off(&lifted.filesystem),
            &[Layer::Capabilities],
        );
        let processes_by: Vec<Layer> = [Layer::Pids].into_iter().filter(|&l| has(l)).collect();
        let processes = protection(request.contain, processes_by, off(&None), &[Layer::Pids]);
        Report {
            mode,
            filesystem,
            network,
            state,
            privileges,
            processes,
            writable,
        }
    }

    /// Whether any protection held.
    pub fn any_active(&self) -> bool {
        self.filesystem.active || self.network.active || self.state.active
    }

    /// The protections that were asked for but could not be had (for `required`, and the
    /// once-per-session notice of `auto`).
    pub fn unavailable(&self) -> Vec<(&'static str, String)> {
        [
            ("filesystem", &self.filesystem),
            ("network", &self.network),
            ("state", &self.state),
            ("privileges", &self.privileges),
            ("processes", &self.processes),
        ]
        .into_iter()
        .filter(|(_, p)| !p.active && p.why.as_ref().is_some_and(Unprotected::is_missing))
        .map(|(name, p)| (name, p.why.as_ref().map(ToString::to_string).unwrap_or_default()))
        .collect()
    }

    pub fn to_json(&self) -> Value {
        json!({
            "mode": self.mode.as_str(),
            "filesystem": self.filesystem.to_json(),
            "network": self.network.to_json(),
            "state": self.state.to_json(),
            "privileges": self.privileges.to_json(),
            "processes": self.processes.to_json(),
            "writable": self.writable,
        })
    }
}
