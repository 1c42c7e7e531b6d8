//! What kind of value the offline extractor reads a field definition as
//! asking for.

#[test]
fn proof_of_address_asks_for_a_document_and_a_room_number_for_a_code() {
    let kind = |name: &str, desc: &str| {
        let name_words = agentcall_english::identifier::split_identifier(name);
        let desc_lower = desc.to_lowercase();
        let text = format!("{} {}", name_words.join(" "), desc_lower);
        crate::value_kind::classify_string_field(&name_words, desc, &text)
    };
    assert!(!matches!(
        kind("proof_of_address", "Document accepted as proof of address"),
        crate::profile::StringKind::Address
    ));
    assert!(matches!(
        kind("delivery_address", "Street address for the delivery"),
        crate::profile::StringKind::Address
    ));
    assert!(matches!(
        kind("office_room", "Room number where she has to apply"),
        crate::profile::StringKind::Code
    ));
}

/// The kind of number a field wants, as the extractor reads its definition.
fn number_unit(name: &str, desc: &str) -> crate::profile::FieldUnit {
    let name_words = agentcall_english::identifier::split_identifier(name);
    let desc_lower = desc.to_lowercase();
    let text = format!("{} {}", name_words.join(" "), desc_lower);
    crate::value_kind::profile_number(&name_words, &desc_lower, &text).unit
}

#[test]
fn a_field_s_unit_follows_its_closing_words_only_where_they_name_one() {
    use crate::profile::FieldUnit;
    assert_eq!(
        number_unit("monthly_rent", "Monthly rent for a one-bed in Los Angeles"),
        FieldUnit::Money
    );
    assert_eq!(
        number_unit(
            "max_bag_weight",
            "Maximum bag weight in pounds before the overweight fee applies"
        ),
        FieldUnit::Weight
    );
    assert_eq!(
        number_unit("asking_price", "Current asking price in pounds"),
        FieldUnit::Money
    );
    assert_eq!(
        number_unit("min_height_cm", "Minimum driver height, in centimetres"),
        FieldUnit::Count
    );
    assert_eq!(
        number_unit("days_in_shop", "Number of days the car will be in the shop"),
        FieldUnit::Duration(agentcall_english::units::DurationUnit::Day)
    );
    // "min" beside another unit of time is the minimum.
    assert_eq!(
        number_unit(
            "min_hours_per_month",
            "Minimum commitment asked of volunteers, in hours per month"
        ),
        FieldUnit::Duration(agentcall_english::units::DurationUnit::Hour)
    );
    assert_eq!(
        number_unit("wait_min", "Expected wait"),
        FieldUnit::Duration(agentcall_english::units::DurationUnit::Minute)
    );
}

#[test]
fn a_room_number_named_in_passing_makes_no_code_field() {
    let kind = |name: &str, desc: &str| {
        let name_words = agentcall_english::identifier::split_identifier(name);
        let text = format!("{} {}", name_words.join(" "), desc.to_lowercase());
        crate::value_kind::classify_string_field(&name_words, desc, &text)
    };
    assert!(!matches!(
        kind(
            "contact",
            "Name to ask for at reception, not the room number"
        ),
        crate::profile::StringKind::Code
    ));
}

#[test]
fn a_count_of_things_is_a_count_whatever_money_or_time_it_names() {
    use crate::profile::FieldUnit;
    assert_eq!(
        number_unit(
            "follow_up_visits",
            "Number of follow-up visits included in the price"
        ),
        FieldUnit::Count
    );
    assert_eq!(
        number_unit("rooms_quoted", "How many rooms are in the quote"),
        FieldUnit::Count
    );
    assert_eq!(
        number_unit("fee_count", "Number of dollars in the fee"),
        FieldUnit::Money
    );
    assert_eq!(
        number_unit(
            "boxes_for_year",
            "Number of boxes needed for a year's supply"
        ),
        FieldUnit::Count
    );
    assert!(matches!(
        number_unit("notice_days", "Number of days of notice needed"),
        FieldUnit::Duration(_)
    ));
}

/// A first or last name is always a person's, whatever thing the field's
/// name also names ("plan_contact_name"); a plan's own name is not.
#[test]
fn a_first_name_is_a_persons() {
    use crate::profile::StringKind;
    let kind = |name: &str, desc: &str| {
        let name_words = agentcall_english::identifier::split_identifier(name);
        let text = format!("{} {}", name_words.join(" "), desc.to_lowercase());
        crate::value_kind::classify_string_field(&name_words, desc, &text)
    };
    assert!(matches!(
        kind(
            "plan_contact_name",
            "First name of the staff member to ask for when setting up a payment plan"
        ),
        StringKind::Name { person: true, .. }
    ));
    assert!(matches!(
        kind("plan_name", "Name of the insurance plan"),
        StringKind::Name { person: false, .. }
    ));
}
