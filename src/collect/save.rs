//! Writing records into a machine's results document through the one atomic writer, with the
//! project's checks.

use crate::data::{self, DataError, Record, Report};
use crate::project::{Layout, ProfileChecks};

/// Writes `record` into the layout's results document through the atomic writer: lock,
/// read, add (or replace, when `replace`), check the document whole as `check` does (its
/// runs against their profiles too), write, fsync, rename. A write that would add a problem
/// is refused and writes nothing; the problems the document already had and still has are
/// returned. The document's `generated` becomes today's date. A key another machine's document has is refused: keys are unique across the
/// project.
pub fn save<R: Record>(
    layout: &Layout,
    record: R,
    replace: bool,
) -> Result<Option<Report>, DataError> {
    save_all(layout, vec![record], replace)
}

/// [`save`] of several records in one write: all of them, or none.
pub fn save_all<R: Record>(
    layout: &Layout,
    records: Vec<R>,
    replace: bool,
) -> Result<Option<Report>, DataError> {
    for other in layout.others() {
        if other.exists() {
            let doc = data::load(other)?;
            for record in &records {
                if R::records(&doc).iter().any(|r| r.key() == record.key()) {
                    return Err(DataError::ExistsElsewhere {
                        array: R::ARRAY,
                        key: record.key().to_owned(),
                        path: other.clone(),
                    });
                }
            }
        }
    }
    let checks = ProfileChecks::of(layout);
    let today = data::Date::today();
    let written = data::update(&layout.results(), &|doc| checks.problems(doc), |doc| {
        records
            .into_iter()
            .try_for_each(|record| doc.put(record, replace))?;
        // The document is the data of the day it was last written (its pages' footer).
        if doc.generated < today {
            doc.generated = today;
        }
        Ok(())
    })?;
    Ok(written.kept)
}
