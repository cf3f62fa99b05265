//! The input of `#[derive(ToolOutput)]` as a model that borrows the user's tokens: a struct
//! is one variant, an enum a list of them.
use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::{Attribute, Data, DeriveInput, Fields, Generics, Ident, Type};

use super::Errors;
use super::attr::{self, Output};
use crate::crate_path;
use crate::format::Arg;
use crate::idents;
use crate::symbol::{METADATA, OUTPUT, PART, Symbol};

pub struct Input<'a> {
    pub ident: &'a Ident,
    pub generics: &'a Generics,
    pub variants: Vec<Variant<'a>>,
}

pub struct Variant<'a> {
    /// The variant's name, or the struct's.
    pub ident: &'a Ident,
    /// The enum's name for a variant (for messages and the `Self::V` path); `None` for a struct.
    pub parent: Option<&'a Ident>,
    pub output: Spec<'a>,
    pub style: Style,
    pub fields: Vec<Field<'a>>,
}

/// What the `#[output]` attribute of a variant says.
pub enum Spec<'a> {
    Absent,
    /// Present but unreadable; already reported, so the variant is not checked further.
    Broken,
    Given(Box<Output<'a>>),
}

#[derive(Clone, Copy, PartialEq)]
pub enum Style {
    Named,
    Tuple,
    Unit,
}

pub struct Field<'a> {
    pub original: &'a syn::Field,
    pub index: usize,
    pub role: Role<'a>,
}

/// Where a field goes besides format strings.
pub enum Role<'a> {
    Plain,
    Part(&'a Attribute),
    Metadata(&'a Attribute),
}

impl<'a> Input<'a> {
    /// Builds the model, recording misplaced or malformed attributes. `None` for a union.
    pub fn from_syn(input: &'a DeriveInput, errors: &mut Errors) -> Option<Self> {
        let variants = match &input.data {
            Data::Struct(data) => {
                vec![Variant::new(
                    &input.ident,
                    None,
                    &input.attrs,
                    &data.fields,
                    errors,
                )]
            }
            Data::Enum(data) => {
                if let Some(attr) = find(&input.attrs, OUTPUT).next() {
                    errors.spanned(
                        attr,
                        "`#[output]` goes on each variant of an enum, not on the enum",
                    );
                }
                check_field_markers(&input.attrs, errors);
                data.variants
                    .iter()
                    .map(|v| {
                        Variant::new(&v.ident, Some(&input.ident), &v.attrs, &v.fields, errors)
                    })
                    .collect()
            }
            Data::Union(data) => {
                errors.spanned(
                    data.union_token,
                    "`ToolOutput` cannot be derived for a union; use an enum or a struct",
                );
                return None;
            }
        };
        Some(Self {
            ident: &input.ident,
            generics: &input.generics,
            variants,
        })
    }
}

impl<'a> Variant<'a> {
    fn new(
        ident: &'a Ident,
        parent: Option<&'a Ident>,
        attrs: &'a [Attribute],
        fields: &'a Fields,
        errors: &mut Errors,
    ) -> Self {
        let mut outputs = find(attrs, OUTPUT);
        let output = match outputs.next() {
            None => Spec::Absent,
            Some(attr) => attr::parse_output(attr, errors)
                .map_or(Spec::Broken, |output| Spec::Given(Box::new(output))),
        };
        for extra in outputs {
            errors.spanned(extra, "duplicate `#[output]`; a variant takes one");
        }
        check_field_markers(attrs, errors);
        if parent.is_some() {
            check_container_only(attrs, "a variant", errors);
        }
        let style = match fields {
            Fields::Named(_) => Style::Named,
            Fields::Unnamed(_) => Style::Tuple,
            Fields::Unit => Style::Unit,
        };
        let fields = fields
            .iter()
            .enumerate()
            .map(|(index, original)| Field::new(original, index, errors))
            .collect();
        Self {
            ident,
            parent,
            output,
            style,
            fields,
        }
    }

    /// `Enum::Variant` or `Struct`, for messages.
    pub fn display_name(&self) -> String {
        match self.parent {
            Some(parent) => format!("{parent}::{}", self.ident),
            None => self.ident.to_string(),
        }
    }

    /// The path that matches this variant inside the impl.
    pub fn path(&self) -> TokenStream {
        let ident = self.ident;
        if self.parent.is_some() {
            quote!(Self::#ident)
        } else {
            quote!(Self)
        }
    }

    /// The field a format argument names, if any.
    pub fn field(&self, arg: &Arg) -> Option<&Field<'a>> {
        self.fields.iter().find(|field| field.is(arg))
    }

    /// The fields that are neither `#[part]` nor `#[metadata]`: what `json` serializes and
    /// `transparent` delegates to.
    pub fn plain_fields(&self) -> impl Iterator<Item = &Field<'a>> {
        self.fields
            .iter()
            .filter(|field| matches!(field.role, Role::Plain))
    }
}

impl<'a> Field<'a> {
    fn new(original: &'a syn::Field, index: usize, errors: &mut Errors) -> Self {
        if let Some(attr) = find(&original.attrs, OUTPUT).next() {
            errors.spanned(
                attr,
                "`#[output]` goes on a variant or struct, not on a field",
            );
        }
        check_container_only(&original.attrs, "a field", errors);
        let mut role = Role::Plain;
        for attr in &original.attrs {
            let this = if attr.path() == PART {
                Role::Part(attr)
            } else if attr.path() == METADATA {
                Role::Metadata(attr)
            } else {
                continue;
            };
            attr::check_marker(attr, errors);
            if let Role::Part(first) | Role::Metadata(first) = role {
                errors.spanned(
                    attr,
                    format!(
                        "a field takes one of `#[part]` and `#[metadata]`, and already has `#[{}]`",
                        first
                            .path()
                            .get_ident()
                            .map(Ident::to_string)
                            .unwrap_or_default()
                    ),
                );
                continue;
            }
            role = this;
        }
        Self {
            original,
            index,
            role,
        }
    }

    pub fn ty(&self) -> &'a Type {
        &self.original.ty
    }

    /// The local the field is bound to in the generated `match`: its own name, or `__fieldN`
    /// for a tuple field.
    pub fn binding(&self) -> Ident {
        match &self.original.ident {
            Some(ident) => ident.clone(),
            None => idents::tuple_field(self.index),
        }
    }

    /// How format strings and messages name the field: `name` or `0`.
    pub fn name(&self) -> String {
        match &self.original.ident {
            Some(ident) => ident.unraw().to_string(),
            None => self.index.to_string(),
        }
    }

    fn is(&self, arg: &Arg) -> bool {
        match (arg, &self.original.ident) {
            (Arg::Index(index), None) => *index == self.index,
            (Arg::Name(name), Some(ident)) => ident.unraw() == name,
            _ => false,
        }
    }
}

fn find(attrs: &[Attribute], name: Symbol) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(move |attr| attr.path() == name)
}

/// `#[toolnexus(crate = "…")]` only means something on the type itself.
fn check_container_only(attrs: &[Attribute], place: &str, errors: &mut Errors) {
    for attr in attrs
        .iter()
        .filter(|attr| crate_path::is_toolnexus_attr(attr))
    {
        errors.spanned(
            attr,
            format!("`#[toolnexus]` goes on the type, not on {place}"),
        );
    }
}

/// `#[part]` and `#[metadata]` only mean something on a field.
fn check_field_markers(attrs: &[Attribute], errors: &mut Errors) {
    for name in [PART, METADATA] {
        for attr in find(attrs, name) {
            errors.spanned(
                attr,
                format!("`#[{name}]` goes on a field, not on a variant or type"),
            );
        }
    }
}
