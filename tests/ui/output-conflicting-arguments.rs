use toolnexus::ToolOutput;

#[derive(ToolOutput)]
enum Outcome {
    #[output(error, json, "failed")]
    TwoModes(String),
    #[output("one", "two")]
    TwoFormats,
    #[output(json, "{0}")]
    JsonWithFormat(u32),
    #[output("done", kind = "approval")]
    KeyWithoutPending,
    #[output(error)]
    ErrorWithoutFormat(String),
    #[output(pending, kind = approval, prompt = "Go?", kind = "again")]
    BadKeyValue,
    #[output(pending, kind = "a", prompt = "b", "bare")]
    PendingWithFormat,
    #[output]
    Bare,
    #[output = "text"]
    NameValue,
    #[output(42)]
    Number,
}

fn main() {}
