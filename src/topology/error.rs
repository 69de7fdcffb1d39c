//! Why a topology could not be built, and, where the file a spec reads
//! (`file:`, `dot:`) is at fault, where in it: a front end shows that
//! place as it shows a wrong line of the program.

/// Why a topology could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// What is wrong, phrased for the command line.
    pub message: String,
    /// Where in the file the spec reads, when a line of it is wrong.
    pub place: Option<FilePlace>,
}

/// A place in a topology file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePlace {
    /// The file as the spec names it.
    pub path: String,
    /// Its text.
    pub text: String,
    /// The bytes at fault.
    pub span: (usize, usize),
    /// How such a file is written.
    pub help: &'static str,
}

impl BuildError {
    /// An error at `span` of `text`, the file `path`.
    pub(super) fn at(
        message: String,
        path: &str,
        text: &str,
        span: (usize, usize),
        help: &'static str,
    ) -> Self {
        BuildError {
            message,
            place: Some(FilePlace {
                path: path.to_string(),
                text: text.to_string(),
                span,
                help,
            }),
        }
    }
}

impl From<String> for BuildError {
    fn from(message: String) -> Self {
        BuildError {
            message,
            place: None,
        }
    }
}

impl std::fmt::Display for BuildError {
    /// One line: the file and line first where there is a place.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.place {
            Some(p) => {
                // Lines end at newlines: a place at a line's start is on it.
                let line = p.text[..p.span.0.min(p.text.len())].matches('\n').count() + 1;
                write!(f, "{}:{line}: {}", p.path, self.message)
            }
            None => f.write_str(&self.message),
        }
    }
}
