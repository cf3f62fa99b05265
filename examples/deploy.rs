//! A stateful toolbox whose methods return their own enums — success, error, a chart image —
//! each variant saying how it lowers, and a production deploy that waits for a human's
//! approval through `#[tool(approval = "…")]`.
//!
//! Run it with `cargo run --example deploy`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use toolnexus::{
    Answer, ContentPart, Json, Reason, Request, ToolContext, ToolOutput, ToolResult, Toolkit,
    serde_json::{self, Value, json},
    tool, toolbox,
};

/// What a deploy can come to.
#[derive(ToolOutput)]
enum Deploy {
    #[output("deployed {service} {version} to {env}")]
    Done {
        service: String,
        version: String,
        env: String,
        #[metadata]
        deployment_id: u64,
    },
    #[output(error, "no such service: {0}; known services are api and web")]
    Unknown(String),
}

/// A chart of a service's error rate.
#[derive(ToolOutput)]
enum Chart {
    #[output("error rate of {service} over the last {hours} hours")]
    Rendered {
        service: String,
        hours: u32,
        #[part]
        png: ContentPart,
        #[metadata]
        points: usize,
    },
    #[output(error, "no metrics for {0}")]
    NoData(String),
}

/// An in-memory deployment service shared by its tools.
struct Deployments {
    services: [&'static str; 2],
    history: Mutex<Vec<Value>>,
    next_id: AtomicU64,
}

#[toolbox]
impl Deployments {
    /// Deploys a version of a service to staging.
    #[tool]
    fn deploy(
        &self,
        /// The service, e.g. "api"
        service: &str,
        /// The version to deploy, e.g. "1.4.2"
        version: &str,
    ) -> Deploy {
        self.ship(service, version, "staging")
    }

    /// Deploys a version of a service to production, once a human approves.
    #[tool(
        approval = "Approve deploying {service} {version} to production?",
        destructive
    )]
    fn deploy_production(
        &self,
        /// The service, e.g. "api"
        service: &str,
        /// The version to deploy, e.g. "1.4.2"
        version: &str,
    ) -> Deploy {
        self.ship(service, version, "production")
    }

    /// Renders the error-rate chart of a service.
    #[tool]
    fn error_chart(&self, service: String, #[param(default = 24)] hours: u32) -> Chart {
        if !self.services.contains(&service.as_str()) {
            return Chart::NoData(service);
        }
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/media/fixture.png");
        match toolnexus::parts::attach(path) {
            Ok(png) => Chart::Rendered {
                service,
                hours,
                png,
                points: hours as usize * 4,
            },
            Err(_) => Chart::NoData(service),
        }
    }

    /// Lists the deployments made so far, oldest first.
    #[tool]
    fn history(&self) -> Json<Vec<Value>> {
        Json(self.history.lock().expect("history lock").clone())
    }
}

impl Deployments {
    fn ship(&self, service: &str, version: &str, env: &str) -> Deploy {
        if !self.services.contains(&service) {
            return Deploy::Unknown(service.to_owned());
        }
        let deployment_id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let entry =
            json!({"id": deployment_id, "service": service, "version": version, "env": env});
        self.history.lock().expect("history lock").push(entry);
        Deploy::Done {
            service: service.to_owned(),
            version: version.to_owned(),
            env: env.to_owned(),
            deployment_id,
        }
    }
}

fn show(label: &str, result: &ToolResult) {
    println!(
        "{label}\n  => {}",
        serde_json::to_string(result).expect("results serialize")
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let service = Arc::new(Deployments {
        services: ["api", "web"],
        history: Mutex::new(Vec::new()),
        next_id: AtomicU64::new(0),
    });
    let toolkit = Toolkit::new().with_all(service.tools());
    let ctx = ToolContext::default();

    println!("# Scripted calls\n");
    for (name, args) in [
        ("deploy", r#"{"service": "api", "version": "1.4.2"}"#),
        ("deploy", r#"{"service": "billing", "version": "0.1.0"}"#),
        ("error_chart", r#"{"service": "web", "hours": 6}"#),
        ("error_chart", r#"{"service": "web", "hours": "six"}"#),
    ] {
        show(
            &format!("{name}({args})"),
            &toolkit.execute_json(name, args, &ctx).await,
        );
    }

    println!("\n# A production deploy suspends until a human answers\n");
    let args = json!({"service": "web", "version": "2.0.0"});
    let first = toolkit
        .execute("deploy_production", args.clone(), &ctx)
        .await;
    show("deploy_production(web 2.0.0)", &first);
    let request: Request = first
        .pending()
        .expect("a production deploy waits for approval");
    println!(
        "  (a human sees {:?} with {}, and approves request {})",
        request.prompt,
        Value::Object(request.data.clone().unwrap_or_default()),
        request.id
    );
    let approved = ToolContext {
        answer: Some(Answer {
            id: request.id,
            ok: true,
            data: None,
            reason: None,
        }),
        ..ToolContext::default()
    };
    show(
        "deploy_production again, with the answer",
        &toolkit.execute("deploy_production", args, &approved).await,
    );

    println!("\n# The same round trip through `Toolkit::call`, declined this time\n");
    let args = json!({"service": "api", "version": "1.5.0"});
    let declined = toolkit
        .call("deploy_production", args, |request: Request| async move {
            println!("  (asked: {:?}; the human declines)", request.prompt);
            Answer {
                id: request.id,
                ok: false,
                data: None,
                reason: Some(Reason::Declined),
            }
        })
        .await;
    show("deploy_production(api 1.5.0)", &declined);

    println!();
    show(
        "history()",
        &toolkit.execute_json("history", "", &ctx).await,
    );
}
