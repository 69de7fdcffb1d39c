//! The value flags of `verify` and `expect`, as clap parses them.

use crate::verify::expected::MoverChoice;
use crate::verify::{Choices, Fairness};

/// `--fairness` of `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum FairnessArg {
    None,
    Weak,
    Strong,
}

impl From<FairnessArg> for Fairness {
    fn from(f: FairnessArg) -> Self {
        match f {
            FairnessArg::None => Fairness::Unfair,
            FairnessArg::Weak => Fairness::Weak,
            FairnessArg::Strong => Fairness::Strong,
        }
    }
}

/// `--format` of `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Format {
    Text,
    Json,
    Csv,
}

/// `--choice` of `verify`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ChoiceArg {
    #[value(alias = "all")]
    Every,
    First,
}

impl From<ChoiceArg> for Choices {
    fn from(c: ChoiceArg) -> Choices {
        match c {
            ChoiceArg::Every => Choices::Every,
            ChoiceArg::First => Choices::First,
        }
    }
}

/// `--choice` of `expect`: `verify`'s two, and a choice drawn as runs
/// with `--choice random` draw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ExpectChoiceArg {
    #[value(alias = "all")]
    Every,
    First,
    Random,
}

impl ExpectChoiceArg {
    /// Its name as `--choice` spells it.
    pub(super) fn name(self) -> &'static str {
        match self {
            ExpectChoiceArg::Every => "every",
            ExpectChoiceArg::First => "first",
            ExpectChoiceArg::Random => "random",
        }
    }
}

impl From<ExpectChoiceArg> for MoverChoice {
    fn from(c: ExpectChoiceArg) -> MoverChoice {
        match c {
            ExpectChoiceArg::Every => MoverChoice::Slowest,
            ExpectChoiceArg::First => MoverChoice::First,
            ExpectChoiceArg::Random => MoverChoice::Drawn,
        }
    }
}
