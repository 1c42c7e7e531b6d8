//! Replies a review found the rules could misread; each is read as a
//! careful person would, or left `null`.

use super::numbers::number;
use super::strings::text;
use super::yes_no::yes_no;
use super::{field, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

/// Agreeing with a statement is a no only when the clause naming the
/// field is in the negative.
#[test]
fn agreeing_with_a_statement_reads_its_clause_about_the_field() {
    let deposit = |statement: &str| {
        let fields = [field(
            "deposit_required",
            FieldType::Boolean,
            "Whether a deposit is required",
        )];
        let transcript = format!("Agent: {statement}\nRecipient: Yep.\nAgent: Thanks.");
        run(&fields, &transcript)["deposit_required"].clone()
    };
    assert_eq!(
        deposit("So there's a deposit, no way around it."),
        json!(true)
    );
    assert_eq!(
        deposit("Great, so the deposit is needed, no problem."),
        json!(true)
    );
    assert_eq!(deposit("Okay, so no deposit needed."), json!(false));
}

/// Out of stock this week is out of stock; "out that way" is travelling.
#[test]
fn out_this_week_is_out_of_stock() {
    let stocked = |reply: &str| {
        yes_no(
            "in_stock",
            "Whether the part is in stock",
            "Is the part in stock?",
            reply,
        )
    };
    assert_eq!(
        stocked("We're out this week, next shipment's Monday."),
        json!(false)
    );
    assert_eq!(stocked("We're all out this week."), json!(false));
}

/// Brands named as all there is may be kinds of the field's thing.
#[test]
fn named_brands_that_are_all_there_is_say_nothing() {
    assert_eq!(
        yes_no(
            "accepts_cards",
            "Whether they accept credit cards",
            "Do you take cards?",
            "Visa and Mastercard, that's all we take."
        ),
        json!(true)
    );
}

/// The speaker counts only in a count of the people sent.
#[test]
fn the_speaker_counts_only_in_a_crew() {
    assert_eq!(
        number(
            "max_dogs_per_walk",
            "Most dogs walked at once",
            "How many dogs do you walk at once?",
            "Me and six dogs, tops."
        ),
        json!(6)
    );
    assert_eq!(
        number(
            "max_class_size",
            "Maximum number of students in a class",
            "How big are the classes?",
            "It's just me and eight students, that's the max."
        ),
        json!(8)
    );
}

/// A price "each" is in hundreds when said so: a fare, a laptop.
#[test]
fn a_price_each_keeps_its_hundreds() {
    assert_eq!(
        number(
            "fare",
            "Round-trip fare per person, in dollars",
            "What's the fare?",
            "Round trip it's five eighty each."
        ),
        json!(580)
    );
    assert_eq!(
        number(
            "laptop_price",
            "Price of each laptop, in dollars",
            "How much are the laptops?",
            "They're six forty-nine each."
        ),
        json!(649)
    );
}

/// A contrast says the opposite only once the reply spoke of the field.
#[test]
fn a_contrast_needs_the_field_spoken_of_first() {
    assert_eq!(
        yes_no(
            "pool_open",
            "Whether the pool is open this weekend",
            "Is the pool open this weekend?",
            "Let me check. The gym's closed for repairs, though."
        ),
        Value::Null
    );
}

/// A time named by a word of the field's description that is no part of
/// its name does not outrank the time asked for.
#[test]
fn the_named_time_is_named_by_the_field_s_name() {
    assert_eq!(
        number(
            "arrival_hour",
            "Hour she should arrive for her appointment, on a 24-hour clock",
            "What time should she get there?",
            "The appointment's at two, but have her come at one thirty for the paperwork."
        ),
        json!(13.5)
    );
}

/// A where-field: "to come" is no place, and numbers in a place's name
/// keep it a place.
#[test]
fn places_with_verbs_and_numbers() {
    let meet = |reply: &str| {
        text(
            "meeting_point",
            "Where the group should meet the guide",
            "Where should they meet?",
            reply,
        )
    };
    assert_eq!(
        meet("Tell them to come to the main gate."),
        json!("main gate")
    );
    assert_eq!(meet("Gate five, by the ticket office."), json!("Gate five"));
    assert_eq!(
        meet("Second floor, first door on the left."),
        json!("Second floor")
    );
}

/// A short echo about someone else ("They do, the Main Street shop")
/// does not contradict a negative question about this one.
#[test]
fn they_do_speaks_of_someone_else() {
    assert_ne!(
        yes_no(
            "onsite_repairs",
            "Whether this shop does repairs on site",
            "You don't do repairs on site, do you?",
            "They do, the Main Street shop, not us."
        ),
        json!(true)
    );
}

/// A capitalised word before a lower-case colour is no paint name, and
/// "Mike Junior" is another Mike.
#[test]
fn colours_and_names_keep_to_what_was_said() {
    assert_eq!(
        text(
            "wall_color",
            "Paint colour for the walls",
            "Which colour did she pick?",
            "She went with the Farrow and Ball white."
        ),
        json!("white")
    );
    let fields = [field(
        "booking_contact",
        FieldType::String,
        "Full name of the person who handles bookings",
    )];
    let out = run(
        &fields,
        "Agent: Who handles the bookings?\n\
         Recipient: That's Mike, the manager.\n\
         Agent: Thanks. And if he's out?\n\
         Recipient: Then Mike Junior can help, that's his son.\n\
         Agent: Thanks.",
    );
    assert_ne!(out["booking_contact"], json!("Mike Junior"), "{out:?}");
}

/// A capacity said as one spoken amount is a count; a time a price could
/// be said at ("it would be at ten") is a time.
#[test]
fn spoken_counts_and_times_stay() {
    assert_eq!(
        number(
            "seat_count",
            "Number of seats in the theatre",
            "How many seats does the theatre have?",
            "Two eighty."
        ),
        json!(280)
    );
    assert_eq!(
        number(
            "appointment_hour",
            "Hour of the appointment, on a 24-hour clock",
            "What time would the appointment be?",
            "It would be at ten."
        ),
        json!(10)
    );
}

/// A pass-on or a side remark after a clear yes takes nothing back.
#[test]
fn a_pass_on_after_a_clear_yes_takes_nothing_back() {
    assert_eq!(
        yes_no(
            "open_sunday",
            "Whether the shop is open on Sundays",
            "Are you open on Sundays?",
            "Yes, ten to four. Parking's a question for the council."
        ),
        json!(true)
    );
}

/// Options named together ("big or small"), a time "every day", a value
/// asked back in passing, and a part of a day refused.
#[test]
fn options_together_every_day_and_parts_of_days() {
    assert_eq!(
        number(
            "small_dog_nightly_rate",
            "Nightly rate for a small dog, in dollars",
            "What's the nightly rate for a small dog?",
            "Thirty-eight a night, big or small."
        ),
        json!(38)
    );
    assert_eq!(
        text(
            "opening_time",
            "Time the shop opens",
            "What time do you open?",
            "We open at nine every day."
        ),
        json!("9")
    );
    assert_eq!(
        text(
            "soonest_day",
            "Soonest day the crew could come",
            "When could they come?",
            "Thursday works, I think, does that suit her?"
        ),
        json!("Thursday")
    );
    assert_eq!(
        text(
            "visit_day",
            "Day of the week of the visit",
            "Which day could you come?",
            "Could do Monday. Not Monday morning, Monday afternoon."
        ),
        json!("Monday")
    );
}

/// A yes that confirms outright while saying goodbye still answers, and
/// no charge for something else says nothing of the field.
#[test]
fn confirmations_with_goodbyes_and_charges_for_other_things() {
    let fields = [field(
        "card_payment",
        FieldType::Boolean,
        "Whether she can pay by card",
    )];
    let out = run(
        &fields,
        "Agent: Great, so she can pay by card on the day. Thanks so much for your help.\n\
         Recipient: Yep, that's right, have a good day!",
    );
    assert_eq!(out["card_payment"], json!(true), "{out:?}");
    assert_ne!(
        yes_no(
            "removal_included",
            "Whether removal of the old unit is included",
            "Is removal of the old unit included?",
            "No charge for the quote. Removal we'd price on the day."
        ),
        json!(true)
    );
}
