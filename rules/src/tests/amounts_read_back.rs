//! The tenth round's rules for amounts: money in any common currency, a
//! field measured in miles, a figure the speaker corrects in the next
//! sentence, and the one of a reply's figures that the asker reads back.

use super::{field, one_exchange, run};
use agentcall::domain::FieldType;
use serde_json::{Value, json};

fn amount(name: &str, desc: &str, question: &str, reply: &str) -> Value {
    one_exchange(name, FieldType::Number, desc, question, reply)
}

/// Rupees, rand, yen and the other common currencies are money, so a fee
/// said in them is no count of "rupees" that loses to a figure in dollars.
#[test]
fn money_in_other_currencies_is_money() {
    for (currency, reply) in [
        (
            "rupees",
            "For one affidavit it is three hundred fifty rupees.",
        ),
        ("rand", "It's three hundred and fifty rand for the callout."),
        ("yen", "That comes to three hundred fifty yen per sheet."),
        ("pesos", "Three hundred fifty pesos, flat."),
    ] {
        assert_eq!(
            amount(
                "callout_fee",
                &format!("Call-out fee, in {currency}"),
                "What's the fee?",
                reply
            ),
            json!(350),
            "{reply}"
        );
    }
}

/// A field that closes "in miles" wants miles, whatever money word
/// ("allowance") it also uses.
#[test]
fn a_field_in_miles_wants_miles_not_money() {
    assert_eq!(
        amount(
            "daily_mileage_limit",
            "Mileage allowance per day, in miles",
            "Is there a mileage limit?",
            "Two hundred miles a day, then it's twenty pence a mile over."
        ),
        json!(200)
    );
}

/// Of two figures in one reply, the one the asker repeats at once is the
/// answer; not when the other side objects, nor when the repeat is about
/// another field, and a repeat put as a question only once answered yes.
#[test]
fn the_figure_read_back_settles_a_reply() {
    let fields = [
        field(
            "price_per_page",
            FieldType::Number,
            "Price per page for the translation, in dollars",
        ),
        field(
            "turnaround_days",
            FieldType::Number,
            "Turnaround in business days",
        ),
    ];
    let reply = "Recipient: Well, standard's thirty-five a page, certified is forty-five \
                 per page, and turnaround's three business days.";
    let question = "Agent: What would a translation cost, and how long does it take?";
    let read_back = |agent: &str, answer: &str| {
        let call = format!("{question}\n{reply}\nAgent: {agent}\nRecipient: {answer}");
        run(&fields, &call)["price_per_page"].clone()
    };
    assert_eq!(
        read_back("Forty-five a page, three business days.", "Yep."),
        json!(45)
    );
    assert_eq!(read_back("So forty-five?", "That's right."), json!(45));
    assert_eq!(
        read_back("So forty-five?", "Hmm, let me check."),
        Value::Null
    );

    let fields = [
        field(
            "monthly_rent",
            FieldType::Number,
            "Monthly rent, in dollars",
        ),
        field("deposit", FieldType::Number, "Security deposit, in dollars"),
    ];
    let call = "Agent: What's the rent?\n\
                Recipient: It's nine fifty, or eleven hundred with parking.\n\
                Agent: Eleven hundred for the deposit too?\n\
                Recipient: Yes.";
    assert_ne!(run(&fields, call)["monthly_rent"], json!(1100));
}

/// A figure taken back at the end of its sentence ("… oh, sorry, no")
/// is corrected by the sentences after it, even unasked; checked and
/// kept, it stands.
#[test]
fn a_figure_taken_back_is_corrected_in_the_next_sentence() {
    let fields = [field(
        "connection_fee",
        FieldType::Number,
        "One-time connection fee, in dollars",
    )];
    let call = |reply: &str| {
        format!(
            "Agent: She'd like the service on from Monday.\n\
             Recipient: Monday, I can do that. There's a one-time connection fee, \
             that's thirty-five dollars… {reply}\n\
             Agent: Understood."
        )
    };
    assert_eq!(
        run(
            &fields,
            &call("oh, sorry, no, that went up in the spring. It's forty now.")
        )["connection_fee"],
        json!(40)
    );
    assert_eq!(
        run(&fields, &call("hang on. Yep, thirty-five, that's right."))["connection_fee"],
        json!(35)
    );
}

/// A reply to a question about another charge ("Is there a registration
/// fee on top?") gives none of the field's; a question naming the
/// field's charge plainly, or another of its words, still asks of it.
#[test]
fn a_question_about_another_charge_asks_nothing_of_the_field() {
    let fields = [field(
        "term_fee",
        FieldType::Number,
        "Fee for the junior class for the whole term, in dollars",
    )];
    let call = "Agent: What's the fee for the term?\n\
                Recipient: Juniors is two eighty-eight for the term.\n\
                Agent: Is there a registration fee on top?\n\
                Recipient: Yes, it's twenty-five dollars.\n\
                Agent: Thanks.";
    assert_eq!(run(&fields, call)["term_fee"], json!(288));
    assert_eq!(
        amount(
            "deductible",
            "Deductible for the chosen policy, in dollars",
            "Would a higher deductible lower the premium?",
            "If you go to a thousand deductible, yes."
        ),
        amount(
            "deductible",
            "Deductible for the chosen policy, in dollars",
            "Would a bigger deductible lower it?",
            "If you go to a thousand deductible, yes."
        )
    );
    assert_eq!(
        amount(
            "monthly_monitoring",
            "Monthly monitoring fee, in dollars",
            "What would installation cost, and what's monitoring per month?",
            "Monitoring runs twenty-nine ninety-nine a month."
        ),
        json!(29.99)
    );
}

/// "Waived if he signs up before the end of the month": waived on a
/// condition said after it is no zero.
#[test]
fn waived_on_a_later_condition_is_no_zero() {
    assert_eq!(
        amount(
            "registration_fee",
            "One-off registration fee, in dollars",
            "Is there a registration fee?",
            "Twenty-five, one-off. Waived if he signs up before the end of the month."
        ),
        json!(25)
    );
}

/// A figure the question itself named ("the six") is what it asks about,
/// not the answer; and a reply that defers the figure asked ("Three, I'd
/// have to get with dispatch") gives nothing for it by pricing another.
#[test]
fn the_figure_a_question_names_is_no_answer_to_it() {
    assert_eq!(
        amount(
            "weekly_price",
            "Price to hire the recommended bin for a week, in dollars",
            "How much is the six for a week?",
            "Six is three-eighty for the week."
        ),
        json!(380)
    );
    assert_eq!(
        amount(
            "three_mover_rate",
            "Hourly rate for a crew of three movers, in dollars per hour",
            "What's the hourly rate for three?",
            "So two guys and a truck is one sixty an hour. Three, I'd have to get with \
             dispatch on that."
        ),
        Value::Null
    );
}
