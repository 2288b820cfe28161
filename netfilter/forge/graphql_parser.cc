// Recursive descent over the executable grammar of the GraphQL spec
// (October 2021, section 2 and appendix B). Depth is bounded, so hostile
// nesting ends in an error rather than a deep stack.
#include <set>

#include "netfilter/forge/graphql_document.h"
#include "netfilter/forge/graphql_lexer.h"

namespace corral::netfilter::forge::graphql {
namespace {

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<Document> Run() {
    Document doc;
    if (tokens_.empty()) return Fail("an empty document");
    while (pos_ < tokens_.size()) {
      Result<void> ok = IsName("fragment") ? ParseFragment(doc) : ParseOperation(doc);
      if (!ok.ok()) return ok.error();
    }
    return doc;
  }

 private:
  Error Fail(std::string_view what) const {
    std::string where = pos_ < tokens_.size() ? " near \"" + tokens_[pos_].text.substr(0, 40) + "\""
                                              : " at the end";
    return Error("GraphQL document: " + std::string(what) + where);
  }
  bool IsPunct(std::string_view p) const {
    return pos_ < tokens_.size() && tokens_[pos_].kind == TokenKind::kPunctuator &&
           tokens_[pos_].text == p;
  }
  bool IsName(std::string_view n = {}) const {
    return pos_ < tokens_.size() && tokens_[pos_].kind == TokenKind::kName &&
           (n.empty() || tokens_[pos_].text == n);
  }
  Result<void> Expect(std::string_view p) {
    if (!IsPunct(p)) return Fail("expected \"" + std::string(p) + "\"");
    ++pos_;
    return Ok();
  }
  Result<std::string> Name() {
    if (!IsName()) return Fail("expected a name");
    return tokens_[pos_++].text;
  }

  // Keeps the nesting bound for one recursive call.
  struct Nest {
    explicit Nest(int& depth) : depth_(depth) { ++depth_; }
    ~Nest() { --depth_; }
    int& depth_;
  };

  Result<void> ParseOperation(Document& doc) {
    Operation op;
    if (!IsPunct("{")) {
      auto keyword = Name();
      if (!keyword.ok()) return keyword.error();
      if (*keyword == "query")
        op.kind = Operation::Kind::kQuery;
      else if (*keyword == "mutation")
        op.kind = Operation::Kind::kMutation;
      else if (*keyword == "subscription")
        op.kind = Operation::Kind::kSubscription;
      else
        return Fail("only operations and fragments may be defined");
      if (IsName()) op.name = tokens_[pos_++].text;
      if (IsPunct("(")) {
        auto ok = ParseVariableDefinitions(op);
        if (!ok.ok()) return ok;
      }
      auto ok = SkipDirectives(false);
      if (!ok.ok()) return ok;
    }
    auto ok = ParseSelectionSet(op.selections);
    if (!ok.ok()) return ok;
    doc.operations.push_back(std::move(op));
    return Ok();
  }

  Result<void> ParseFragment(Document& doc) {
    ++pos_;  // "fragment"
    Fragment fragment;
    auto name = Name();
    if (!name.ok()) return name.error();
    if (*name == "on") return Fail("a fragment may not be named \"on\"");
    fragment.name = *name;
    if (!IsName("on")) return Fail("expected \"on\"");
    ++pos_;
    auto type = Name();
    if (!type.ok()) return type.error();
    fragment.type_condition = *type;
    auto ok = SkipDirectives(false);
    if (!ok.ok()) return ok;
    ok = ParseSelectionSet(fragment.selections);
    if (!ok.ok()) return ok;
    doc.fragments.push_back(std::move(fragment));
    return Ok();
  }

  Result<void> ParseVariableDefinitions(Operation& op) {
    ++pos_;  // "("
    std::set<std::string> seen;
    do {
      VariableDefinition def;
      auto ok = Expect("$");
      if (!ok.ok()) return ok;
      auto name = Name();
      if (!name.ok()) return name.error();
      if (!seen.insert(*name).second) return Fail("a variable defined twice");
      def.name = *name;
      ok = Expect(":");
      if (!ok.ok()) return ok;
      ok = SkipType();
      if (!ok.ok()) return ok;
      if (IsPunct("=")) {
        ++pos_;
        auto value = ParseValue(true);
        if (!value.ok()) return value.error();
        def.default_value = std::move(value.value());
      }
      ok = SkipDirectives(true);
      if (!ok.ok()) return ok;
      op.variables.push_back(std::move(def));
    } while (!IsPunct(")"));
    ++pos_;
    return Ok();
  }

  Result<void> SkipType() {
    Nest nest(depth_);
    if (depth_ > kMaxParseDepth) return Fail("types nested too deep");
    if (IsPunct("[")) {
      ++pos_;
      auto ok = SkipType();
      if (!ok.ok()) return ok;
      ok = Expect("]");
      if (!ok.ok()) return ok;
    } else {
      auto name = Name();
      if (!name.ok()) return name.error();
    }
    if (IsPunct("!")) ++pos_;
    return Ok();
  }

  Result<void> SkipDirectives(bool constant) {
    while (IsPunct("@")) {
      ++pos_;
      auto name = Name();
      if (!name.ok()) return name.error();
      std::vector<Argument> ignored;
      if (IsPunct("(")) {
        auto ok = ParseArguments(ignored, constant);
        if (!ok.ok()) return ok;
      }
    }
    return Ok();
  }

  Result<void> ParseArguments(std::vector<Argument>& out, bool constant) {
    ++pos_;  // "("
    std::set<std::string> seen;
    do {
      auto name = Name();
      if (!name.ok()) return name.error();
      if (!seen.insert(*name).second) return Fail("an argument given twice");
      auto ok = Expect(":");
      if (!ok.ok()) return ok;
      auto value = ParseValue(constant);
      if (!value.ok()) return value.error();
      out.push_back(Argument{std::move(name.value()), std::move(value.value())});
    } while (!IsPunct(")"));
    ++pos_;
    return Ok();
  }

  Result<void> ParseSelectionSet(std::vector<Selection>& out) {
    Nest nest(depth_);
    if (depth_ > kMaxParseDepth) return Fail("selections nested too deep");
    auto ok = Expect("{");
    if (!ok.ok()) return ok;
    do {
      auto selection = IsPunct("...") ? ParseFragmentUse() : ParseField();
      if (!selection.ok()) return selection.error();
      out.push_back(std::move(selection.value()));
    } while (!IsPunct("}"));
    ++pos_;
    return Ok();
  }

  Result<Selection> ParseField() {
    Selection field;
    auto name = Name();
    if (!name.ok()) return name.error();
    if (IsPunct(":")) {  // what came first was the alias
      ++pos_;
      name = Name();
      if (!name.ok()) return name.error();
    }
    field.name = *name;
    if (IsPunct("(")) {
      auto ok = ParseArguments(field.arguments, false);
      if (!ok.ok()) return ok.error();
    }
    auto ok = SkipDirectives(false);
    if (!ok.ok()) return ok.error();
    if (IsPunct("{")) {
      field.has_selection_set = true;
      ok = ParseSelectionSet(field.selections);
      if (!ok.ok()) return ok.error();
    }
    return field;
  }

  Result<Selection> ParseFragmentUse() {
    ++pos_;  // "..."
    Selection use;
    if (IsName() && !IsName("on")) {
      use.kind = Selection::Kind::kFragmentSpread;
      use.name = tokens_[pos_++].text;
      auto ok = SkipDirectives(false);
      if (!ok.ok()) return ok.error();
      return use;
    }
    use.kind = Selection::Kind::kInlineFragment;
    if (IsName("on")) {
      ++pos_;
      auto type = Name();
      if (!type.ok()) return type.error();
      use.type_condition = *type;
    }
    auto ok = SkipDirectives(false);
    if (!ok.ok()) return ok.error();
    use.has_selection_set = true;
    ok = ParseSelectionSet(use.selections);
    if (!ok.ok()) return ok.error();
    return use;
  }

  Result<Value> ParseValue(bool constant) {
    Nest nest(depth_);
    if (depth_ > kMaxParseDepth) return Fail("values nested too deep");
    if (pos_ >= tokens_.size()) return Fail("expected a value");
    const Token& token = tokens_[pos_];
    Value value;
    switch (token.kind) {
      case TokenKind::kInt: value.kind = Value::Kind::kInt; break;
      case TokenKind::kFloat: value.kind = Value::Kind::kFloat; break;
      case TokenKind::kString: value.kind = Value::Kind::kString; break;
      case TokenKind::kName:
        value.kind = token.text == "true" || token.text == "false" ? Value::Kind::kBoolean
                     : token.text == "null"                        ? Value::Kind::kNull
                                                                   : Value::Kind::kEnum;
        break;
      case TokenKind::kPunctuator:
        if (token.text == "$") {
          if (constant) return Fail("a variable where only constants may stand");
          ++pos_;
          auto name = Name();
          if (!name.ok()) return name.error();
          value.kind = Value::Kind::kVariable;
          value.text = *name;
          return value;
        }
        if (token.text == "[") return ParseList(constant);
        if (token.text == "{") return ParseObject(constant);
        return Fail("expected a value");
    }
    value.text = token.text;
    ++pos_;
    return value;
  }

  Result<Value> ParseList(bool constant) {
    ++pos_;  // "["
    Value list;
    list.kind = Value::Kind::kList;
    while (!IsPunct("]")) {
      auto item = ParseValue(constant);
      if (!item.ok()) return item.error();
      list.items.push_back(std::move(item.value()));
    }
    ++pos_;
    return list;
  }

  Result<Value> ParseObject(bool constant) {
    ++pos_;  // "{"
    Value object;
    object.kind = Value::Kind::kObject;
    std::set<std::string> seen;
    while (!IsPunct("}")) {
      auto key = Name();
      if (!key.ok()) return key.error();
      if (!seen.insert(*key).second) return Fail("an input field given twice");
      auto ok = Expect(":");
      if (!ok.ok()) return ok.error();
      auto item = ParseValue(constant);
      if (!item.ok()) return item.error();
      object.keys.push_back(std::move(key.value()));
      object.items.push_back(std::move(item.value()));
    }
    ++pos_;
    return object;
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Result<Document> ParseDocument(std::string_view source) {
  auto tokens = Tokenize(source);
  if (!tokens.ok()) return tokens.error();
  return Parser(std::move(tokens.value())).Run();
}

}  // namespace corral::netfilter::forge::graphql
