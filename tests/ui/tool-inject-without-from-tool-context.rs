use toolnexus::tool;

struct Tenant(String);

/// Names the tenant.
#[tool]
fn tenant(#[param(inject)] tenant: Tenant) -> String {
    tenant.0
}

fn main() {}
