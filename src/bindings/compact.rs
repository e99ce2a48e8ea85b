//! The summariser's job, exported to JS as `CompactionJob`. `js/compact.ts`
//! drives it: it asks for each request, carries it to the host's gateway and
//! hands back the reply; every decision stays in `crate::summary::Job`.

use wasm_bindgen::prelude::*;

use super::convert::{
    json_to_js, read_array, read_format, read_options, to_js_error, type_error, JsNode,
};
use super::types::{MessageList, SummaryOptionsArg};
use crate::node::Node;
use crate::summary::{Job, SummaryOptions};

#[wasm_bindgen]
pub struct CompactionJob {
    job: Job,
}

#[wasm_bindgen]
impl CompactionJob {
    /// Reads and checks `effective`, `model` and the options, and plans the
    /// requests. Nothing of the caller's values is kept: the job holds text.
    #[wasm_bindgen(constructor)]
    pub fn new(
        effective: MessageList,
        model: JsValue,
        options: Option<SummaryOptionsArg>,
    ) -> Result<CompactionJob, JsValue> {
        let nodes = read_array(&effective, "effective")?;
        let Some(model) = model.as_string() else {
            return Err(type_error(format!(
                "model must be a non-empty string, got {}",
                JsNode(model).kind().describe()
            )));
        };
        let options = read_options(
            options.map(Into::into).unwrap_or(JsValue::UNDEFINED),
            "options",
        )?;
        let format = read_format(&options, "options")?;
        let summary_options = SummaryOptions::read(&options).map_err(to_js_error)?;
        Job::new(&nodes, &model, summary_options, format)
            .map(|job| CompactionJob { job })
            .map_err(to_js_error)
    }

    /// How many requests the job makes in all.
    #[wasm_bindgen(getter)]
    pub fn total(&self) -> usize {
        self.job.total()
    }

    /// How many replies it has taken.
    #[wasm_bindgen(getter)]
    pub fn done(&self) -> usize {
        self.job.done()
    }

    /// The next request body, `undefined` once every chunk is summarised.
    pub fn request(&self) -> JsValue {
        self.job
            .request()
            .map_or(JsValue::UNDEFINED, |request| json_to_js(&request))
    }

    /// Takes the gateway's reply to the current request; an unusable reply
    /// throws an `Error` saying what came back.
    pub fn accept(&mut self, reply: JsValue) -> Result<(), JsValue> {
        self.job
            .accept(&JsNode(reply))
            .map_err(|why| super::own_values::Error::new(&why).into())
    }

    /// The marker in the history's format; throws an `Error` when the summary
    /// is unfinished or would not make the history smaller.
    pub fn finish(&self) -> Result<JsValue, JsValue> {
        self.job
            .finish()
            .map(|marker| json_to_js(&marker))
            .map_err(|why| super::own_values::Error::new(&why).into())
    }
}
