//! Platforms without a sandbox yet: every layer is missing, so `auto` runs guarded by the
//! classifier alone and `required` refuses. A macOS seatbelt profile would live beside this.

use super::{Layer, Missing, Request};

pub const STEPS: [(Layer, &str); 1] = [(Layer::Landlock, "entering the sandbox")];

pub fn failure(_index: usize, errno: i32) -> super::SetupFailure {
    super::SetupFailure {
        layer: Layer::Landlock,
        step: STEPS[0].1,
        errno,
    }
}

pub struct Prepared {
    pub missing: Vec<Missing>,
    pub layers: Vec<Layer>,
}

impl Prepared {
    pub fn new(request: &Request, _unavailable: &[Missing]) -> Prepared {
        let reason = format!("no sandbox is built for {}", std::env::consts::OS);
        Prepared {
            missing: request
                .layers()
                .into_iter()
                .map(|layer| Missing {
                    layer,
                    reason: reason.clone(),
                })
                .collect(),
            layers: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        true
    }

    /// # Safety
    /// Nothing to enter.
    pub unsafe fn enter(&self) -> Result<(), (usize, i32)> {
        Ok(())
    }
}
