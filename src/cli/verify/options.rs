//! The value flags of `verify` and `expect`, as clap parses them.

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
