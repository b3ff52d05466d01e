"""Which messages lean on the previous question (`conversation.leans_on_previous`).

In the widget every question after the first has history. A follow-up that needs the question
before it to be understood borrows its words; a new question asked later in the same chat must
not, or the dense model finds the previous answer again (before this rule, "kresd prometheus
metrics" asked after another question lost its first page)."""

import pytest
from askdocs.edge_runtime.conversation import Turn, leans_on_previous, search_query

HISTORY = (Turn("user", "How do I start the server?"), Turn("assistant", "Run `tallyfox serve`."))


@pytest.mark.parametrize(
    "message",
    [
        "and on Windows?",
        "What about fish?",
        "ok, and how many workers should I start with?",
        "OK and how does the client actually send that token on each request?",
        "Thanks. And what address does it listen on?",
        "why?",
        "on macOS?",
        "can it open in the browser tab instead of downloading?",
        "It doesn't come back after a reboot though. Why?",
        "If I set it in Meta but also pass a different value to load(), which one wins?",
        "What status code do they get once they go over it?",
        "Inside that function, how do I reject a value with my own error message?",
        "Can I also add custom headers to that error response?",
        "Can I merge the two versions by hand in an editor instead?",
        "What if I later want to shrink it back down to 50 MB?",
        "can I show only the most recent few of them?",
        "can I skip the real login in those tests and just act as a given user?",
        "do I need to register my own client credentials for that?",
        "does that work on Windows too?",
        "¿Y en Windows?",
        "vale, ¿y si quiero cambiarlo después?",
        "¿Puedo usar eso con Docker?",
    ],
)
def test_a_follow_up_borrows_the_previous_question(message):
    assert leans_on_previous(message)
    assert search_query(message, HISTORY) == f"How do I start the server? {message}"


@pytest.mark.parametrize(
    "message",
    [
        # Keyword queries name their own subject.
        "kresd prometheus metrics",
        "negative trust anchor",
        "what does FLASK_SKIP_DOTENV do?",
        "RedirectResponse default status code",
        # A pronoun after the message has named its subject points inside it.
        "My API only uses one CPU core. How do I get it to run on all the cores of the machine?",
        "Every request re-reads my .env config file. How can I make it load only once?",
        "Can borg cap its upload speed on a small uplink?",
        "What does TRAP_BAD_REQUEST_ERRORS do, and what is its default?",
        "Anonymous visitors are hammering my public endpoints. How do I cap them?",
        "union_mode='left_to_right' vs 'smart' - which one is the default and how do they differ?",
        "separate_input_output_schemas=False - which fastapi version added that?",
        # An "it" that points at nothing, a relative "that", "instead of" something named.
        "Is it possible to run two instances on one host?",
        "What does it mean when the agent exits with code 7?",
        "Is there a generator that turns my schemas into TypeScript interfaces?",
        "I need a rule that looks at two inputs together. Where do I put it?",
        "When should I use custom_version_option instead of version_option?",
        "How do I make a dependency run in a separate process instead of a thread?",
        "¿Cuándo uso raw_data en vez de data en un ServerSentEvent?",
        "¿Cómo configuro el proxy HTTP?",
        "Is the agent too slow for a Raspberry Pi 3?",
    ],
)
def test_a_new_question_later_in_the_chat_is_searched_as_asked(message):
    assert not leans_on_previous(message)
    assert search_query(message, HISTORY) == message


def test_without_history_nothing_is_borrowed():
    assert search_query("and on Windows?", ()) == "and on Windows?"
    assert search_query("and on Windows?", (Turn("assistant", "Hello!"),)) == "and on Windows?"
