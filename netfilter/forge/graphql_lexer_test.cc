// The lexer and parser against the spec's grammar (October 2021): expected
// tokens and values are worked out by hand from the spec's rules.
#include <string>

#include <gtest/gtest.h>

#include "netfilter/forge/graphql_document.h"
#include "netfilter/forge/graphql_lexer.h"

namespace corral::netfilter::forge::graphql {
namespace {

std::vector<std::string> Texts(std::string_view source) {
  auto tokens = Tokenize(source);
  EXPECT_TRUE(tokens.ok()) << (tokens.ok() ? "" : tokens.error().message);
  std::vector<std::string> texts;
  if (tokens.ok()) {
    for (const Token& token : *tokens) texts.push_back(token.text);
  }
  return texts;
}

std::string OneString(std::string_view source) {
  auto tokens = Tokenize(source);
  EXPECT_TRUE(tokens.ok()) << (tokens.ok() ? "" : tokens.error().message);
  if (!tokens.ok() || tokens->size() != 1) return "<not one token>";
  EXPECT_EQ((*tokens)[0].kind, TokenKind::kString);
  return (*tokens)[0].text;
}

TEST(GraphqlLexer, PunctuatorsNamesAndNumbers) {
  EXPECT_EQ(Texts("query Q($a: [Int!]! = [1]) { f(x: -1.5e3, y: 0) ...F ... on T { g } }"),
            (std::vector<std::string>{"query", "Q",   "(",  "$",      "a", ":", "[", "Int", "!",
                                      "]",     "!",   "=",  "[",      "1", "]", ")", "{",   "f",
                                      "(",     "x",   ":",  "-1.5e3", "y", ":", "0", ")",   "...",
                                      "F",     "...", "on", "T",      "{", "g", "}", "}"}));
  auto tokens = Tokenize("1 -2 3.5 4e10 _n9");
  ASSERT_TRUE(tokens.ok());
  EXPECT_EQ((*tokens)[0].kind, TokenKind::kInt);
  EXPECT_EQ((*tokens)[1].kind, TokenKind::kInt);
  EXPECT_EQ((*tokens)[2].kind, TokenKind::kFloat);
  EXPECT_EQ((*tokens)[3].kind, TokenKind::kFloat);
  EXPECT_EQ((*tokens)[4].kind, TokenKind::kName);
}

TEST(GraphqlLexer, IgnoredTokens) {
  // Commas, white space, a byte order mark and comments are all insignificant.
  EXPECT_EQ(Texts("\xEF\xBB\xBF{a,,b\t\r\n# repository(owner:\"x\", name:\"y\")\nc}"),
            (std::vector<std::string>{"{", "a", "b", "c", "}"}));
  // A comment ends at a carriage return as well as a line feed.
  EXPECT_EQ(Texts("{a # hidden\rb}"), (std::vector<std::string>{"{", "a", "b", "}"}));
  // A `#` inside a string is not a comment.
  EXPECT_EQ(OneString("\"x#y\""), "x#y");
}

TEST(GraphqlLexer, StringEscapes) {
  EXPECT_EQ(OneString(R"("\u0070roj")"), "proj");
  EXPECT_EQ(OneString(R"("a\"b\\c\/d\n\t")"), "a\"b\\c/d\n\t");
  EXPECT_EQ(OneString(R"("\u00e9")"), "\xC3\xA9");                // é
  EXPECT_EQ(OneString(R"("\uD83D\uDE00")"), "\xF0\x9F\x98\x80");  // U+1F600 from a surrogate pair
  EXPECT_EQ(OneString("\"caf\xC3\xA9\""), "caf\xC3\xA9");         // UTF-8 as written
  EXPECT_EQ(OneString("\"\""), "");
}

TEST(GraphqlLexer, BlockStrings) {
  // Common indentation and blank first and last lines are removed.
  EXPECT_EQ(OneString("\"\"\"\n    hello\n      world\n    \"\"\""), "hello\n  world");
  EXPECT_EQ(OneString("\"\"\"widgets\"\"\""), "widgets");
  // Only \""" is an escape; other backslashes stay as written.
  EXPECT_EQ(OneString(R"("""a \""" b \n c""")"), "a \"\"\" b \\n c");
  // The first line keeps its indentation; \r\n is a line end.
  EXPECT_EQ(OneString("\"\"\"  x\r\n  y\r\n    z\"\"\""), "  x\ny\n  z");
}

TEST(GraphqlLexer, RefusesWhatTheSpecDoesNotPlace) {
  for (std::string_view bad : {"01",
                               "1.",
                               "1.e3",
                               "1e",
                               "-",
                               "-a",
                               "1a",
                               "0x1",
                               "1.5.2",
                               "..",
                               ".",
                               "{a} ;",
                               "\"open",
                               "\"line\nend\"",
                               "\"\\x\"",
                               "\"\\u00G0\"",
                               "\"\\uD83D\"",
                               "\"\\uDE00\"",
                               "\"\\uD83Dx\"",
                               "\"\\u12\"",
                               "\"\"\"open",
                               "{ a\xC2\xA0}",
                               "'single'",
                               "\"ctl\x01\"",
                               "\"\"\"ctl\x01\"\"\""}) {
    EXPECT_FALSE(Tokenize(bad).ok()) << bad;
  }
  EXPECT_FALSE(Tokenize(std::string("{a\0b}", 5)).ok());
}

TEST(GraphqlParser, ReadsOperationsFragmentsAndArguments) {
  auto doc = ParseDocument(R"(
    query Q($o: String = "octo-org", $n: String!) @live {
      a: repository(owner: $o, name: $n) @include(if: true) {
        ...F
        ... { id }
        ... on Repository { issues(filterBy: {labels: ["x"], since: null}) { totalCount } }
      }
    }
    fragment F on Repository { name }
    mutation { addStar(input: {starrableId: "R_1"}) { clientMutationId } }
  )");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  ASSERT_EQ(doc->operations.size(), 2u);
  const Operation& query = doc->operations[0];
  EXPECT_EQ(query.name, "Q");
  ASSERT_EQ(query.variables.size(), 2u);
  ASSERT_TRUE(query.variables[0].default_value.has_value());
  EXPECT_EQ(query.variables[0].default_value->text, "octo-org");
  EXPECT_FALSE(query.variables[1].default_value.has_value());
  const Selection& repo = query.selections.at(0);
  EXPECT_EQ(repo.name, "repository");  // the field's name, not its alias
  ASSERT_EQ(repo.arguments.size(), 2u);
  EXPECT_EQ(repo.arguments[0].value.kind, Value::Kind::kVariable);
  EXPECT_EQ(repo.arguments[0].value.text, "o");
  ASSERT_EQ(repo.selections.size(), 3u);
  EXPECT_EQ(repo.selections[0].kind, Selection::Kind::kFragmentSpread);
  EXPECT_EQ(repo.selections[1].kind, Selection::Kind::kInlineFragment);
  EXPECT_EQ(repo.selections[1].type_condition, "");
  EXPECT_EQ(repo.selections[2].type_condition, "Repository");
  const Value& filter = repo.selections[2].selections.at(0).arguments.at(0).value;
  ASSERT_EQ(filter.kind, Value::Kind::kObject);
  EXPECT_EQ(filter.keys, (std::vector<std::string>{"labels", "since"}));
  EXPECT_EQ(filter.items[1].kind, Value::Kind::kNull);
  EXPECT_EQ(doc->operations[1].kind, Operation::Kind::kMutation);
  EXPECT_EQ(doc->operations[1].name, "");
  ASSERT_EQ(doc->fragments.size(), 1u);
  EXPECT_EQ(doc->fragments[0].type_condition, "Repository");
}

TEST(GraphqlParser, RefusesWhatIsNotAnExecutableDocument) {
  for (std::string_view bad : {"",
                               "{}",
                               "{ a() }",
                               "{ a(x: 1, x: 2) }",
                               "{ a(x: {k: 1, k: 2}) }",
                               "query ($a: Int, $a: Int) { b }",
                               "query ($a: Int = $b) { c }",
                               "query () { a }",
                               "fragment on on T { a }",
                               "fragment F T { a }",
                               "type Foo { a: Int }",
                               "schema { query: Q }",
                               "{ a",
                               "{ a(x: ) }",
                               "{ ... }",
                               "{ a(x: [1 }",
                               "query Q",
                               "{ a } extra",
                               "{ a: }",
                               "query ($a: [Int) { b }",
                               "{ a(x: {1: 2}) }"}) {
    EXPECT_FALSE(ParseDocument(bad).ok()) << bad;
  }
}

TEST(GraphqlParser, BoundsNesting) {
  auto nested = [](int depth, std::string_view open, std::string_view close) {
    std::string text = "{ f(x: ";
    for (int i = 0; i < depth; ++i) text += open;
    text += "1";
    for (int i = 0; i < depth; ++i) text += close;
    return text + ") }";
  };
  EXPECT_TRUE(ParseDocument(nested(20, "[", "]")).ok());
  EXPECT_FALSE(ParseDocument(nested(100, "[", "]")).ok());
  EXPECT_FALSE(ParseDocument(nested(100000, "{k: ", "}")).ok());
  std::string fields;
  for (int i = 0; i < 100000; ++i) fields += "{ a ";
  EXPECT_FALSE(ParseDocument(fields).ok());
  std::string type = "query ($a: ";
  for (int i = 0; i < 100000; ++i) type += "[";
  EXPECT_FALSE(ParseDocument(type).ok());
}

}  // namespace
}  // namespace corral::netfilter::forge::graphql
