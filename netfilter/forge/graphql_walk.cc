// The walk keeps a scope that only narrows on the way down (a repository
// named by owner and name is the one way back to full reads, since the
// judge checks it by name):
//   root        Query's fields; anything but the known few reads beyond
//   repository  inside a named repository or a node the judge resolves
//   shallow     through a field that leads outside: scalars and more of
//               the same only
//   viewer, owner, identity: who an account is, and repository(name:)
//   free        introspection and rate limits
#include "netfilter/forge/graphql_walk.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "netfilter/forge/graphql_scope.h"

namespace corral::netfilter::forge::graphql {
namespace {

using nlohmann::json;

enum class Scope { kRoot, kMutationRoot, kRepository, kShallow, kViewer, kOwner, kIdentity, kFree };

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

class Walker {
 public:
  Walker(const Document& doc, const Operation& op, const json& variables, GraphqlRequest& out)
      : doc_(doc), op_(op), variables_(variables), out_(out) {}

  Result<void> Run() {
    for (const Fragment& fragment : doc_.fragments) {
      if (!fragments_.emplace(fragment.name, &fragment).second) {
        return Error("GraphQL document: fragment " + fragment.name + " is defined twice");
      }
    }
    for (const VariableDefinition& def : op_.variables) definitions_[def.name] = &def;
    Scope root = op_.kind == Operation::Kind::kMutation ? Scope::kMutationRoot : Scope::kRoot;
    return WalkSet(op_.selections, root, 1, "");
  }

 private:
  Result<void> WalkSet(const std::vector<Selection>& set, Scope scope, int depth,
                       const std::string& login) {
    if (depth > kMaxSelectionDepth) return Error("GraphQL operation nested deeper than 64");
    for (const Selection& selection : set) {
      if (++selections_ > kMaxSelections)
        return Error("GraphQL operation has more than 10,000 selections");
      Result<void> ok = Ok();
      if (selection.kind == Selection::Kind::kField) {
        ok = WalkField(selection, scope, depth, login);
      } else if (selection.kind == Selection::Kind::kInlineFragment) {
        ok = WalkSet(selection.selections, Narrow(scope, selection.type_condition), depth + 1,
                     login);
      } else {
        ok = WalkSpread(selection.name, scope, depth, login);
      }
      if (!ok.ok()) return ok;
    }
    return Ok();
  }

  Result<void> WalkSpread(const std::string& name, Scope scope, int depth,
                          const std::string& login) {
    auto found = fragments_.find(name);
    if (found == fragments_.end()) return Error("GraphQL document: no fragment named " + name);
    if (!active_.insert(name).second)
      return Error("GraphQL document: fragment " + name + " spreads itself");
    auto ok = WalkSet(found->second->selections, Narrow(scope, found->second->type_condition),
                      depth + 1, login);
    active_.erase(name);
    return ok;
  }

  // A type condition on an account or a cross-reference event narrows a
  // repository's scope to shallow reads.
  static Scope Narrow(Scope scope, const std::string& type_condition) {
    return scope == Scope::kRepository && IsOutsideType(type_condition) ? Scope::kShallow : scope;
  }

  Result<void> WalkField(const Selection& field, Scope scope, int depth, const std::string& login) {
    for (const Argument& argument : field.arguments) {
      auto ok = CollectValue(argument.name, argument.value);
      if (!ok.ok()) return ok;
    }
    if (scope == Scope::kRoot || scope == Scope::kMutationRoot) {
      Add(out_.root_fields, root_seen_, field.name);
      if (scope == Scope::kMutationRoot) Add(out_.mutations, mutation_seen_, field.name);
    }
    std::string child_login = login;
    Result<Scope> child = Scope::kRepository;
    if (field.name == "repository" && Find(field, "owner")) {
      child = NamedRepository(field, "");
    } else {
      child = Classify(field, scope, child_login);
    }
    if (!child.ok()) return child.error();
    return WalkSet(field.selections, *child, depth + 1, child_login);
  }

  // Decides where `field`'s own selections stand, marking the request
  // unbounded when the field reads beyond the repositories named.
  Result<Scope> Classify(const Selection& field, Scope scope, std::string& login) {
    const std::string& name = field.name;
    bool leaf = !field.has_selection_set;
    switch (scope) {
      case Scope::kFree: return Scope::kFree;
      case Scope::kMutationRoot: return Scope::kRepository;
      case Scope::kRoot:
        if (name == "repository")
          return Error("GraphQL operation: repository() needs owner and name");
        if (name == "node" || name == "nodes") return Scope::kRepository;
        if (name == "viewer") return Scope::kViewer;
        if (name == "repositoryOwner" || name == "organization" || name == "user") {
          auto owner = StringArgument(field, "login");
          if (!owner.ok()) return owner.error();
          login = Lower(*owner);
          if (login.empty()) return Error("GraphQL operation: " + name + "(login:) is empty");
          return Scope::kOwner;
        }
        if (IsHarmlessRootField(name)) return Scope::kFree;
        return Outside(name + " is a root field that reads beyond the project's repositories");
      case Scope::kViewer:
        if (leaf && IsViewerScalar(name)) return Scope::kViewer;
        return Outside("viewer." + name + " reads the account's data, not the project's");
      case Scope::kOwner:
        if (name == "repository") return NamedRepository(field, login);
        if (leaf && IsIdentityScalar(name)) return Scope::kOwner;
        if (name == "team" && Find(field, "slug")) return Scope::kIdentity;
        return Outside(login + "." + name + " reads an account beyond the repositories named");
      case Scope::kIdentity:
        if (leaf && IsIdentityScalar(name)) return Scope::kIdentity;
        return Outside(name + " reads a team beyond its name");
      case Scope::kRepository:
        if (leaf) return Scope::kRepository;
        if (IsRepositoryList(name)) return Outside(name + " lists repositories beyond the project");
        if (name == "repository" && !field.arguments.empty()) {
          return Outside("repository(name:) looks up a repository of an account not named");
        }
        if (name == "repository" || LeadsOutside(name)) return Scope::kShallow;
        return Scope::kRepository;
      case Scope::kShallow:
        if (leaf) {
          if (IsContentScalar(name))
            return Outside(name + " reads content through a field that leads outside");
          return Scope::kShallow;
        }
        if (IsRepositoryList(name)) return Outside(name + " lists repositories beyond the project");
        if (name == "repository" && !field.arguments.empty()) {
          return Outside("repository(name:) looks up a repository of an account not named");
        }
        if (name == "repository" || LeadsOutside(name) || IsConnectionWrapper(name) ||
            IsShallowDetail(name)) {
          return Scope::kShallow;
        }
        return Outside(name + " reads into an object that may belong to another repository");
    }
    return Error("GraphQL operation: unknown scope");
  }

  Scope Outside(std::string why) {
    if (!out_.unbounded) {
      out_.unbounded = true;
      out_.unbounded_why = std::move(why);
    }
    return Scope::kShallow;
  }

  // repository(owner:, name:), or repository(name:) under an owner named by login.
  Result<Scope> NamedRepository(const Selection& field, const std::string& login) {
    std::string owner = login;
    if (login.empty()) {
      auto given = StringArgument(field, "owner");
      if (!given.ok()) return given.error();
      owner = Lower(*given);
    } else if (Find(field, "owner")) {
      return Error("GraphQL operation: repository() under an owner takes no owner");
    }
    auto name = StringArgument(field, "name");
    if (!name.ok()) return name.error();
    if (owner.empty() || name->empty())
      return Error("GraphQL operation: a repository with an empty owner or name");
    Add(out_.repos, repo_seen_, owner + "/" + Lower(*name));
    return Scope::kRepository;
  }

  static const Value* Find(const Selection& field, std::string_view name) {
    for (const Argument& argument : field.arguments) {
      if (argument.name == name) return &argument.value;
    }
    return nullptr;
  }

  // The string an argument holds, written or through a variable (its value,
  // else its default); anything else is an error.
  Result<std::string> StringArgument(const Selection& field, std::string_view name) {
    const Value* value = Find(field, name);
    std::string what = field.name + "(" + std::string(name) + ":)";
    if (!value) return Error("GraphQL operation: " + what + " is missing");
    if (value->kind == Value::Kind::kVariable) {
      auto resolved = Resolve(value->text);
      if (!resolved.ok()) return resolved.error();
      if (resolved->json_value && resolved->json_value->is_string())
        return resolved->json_value->get<std::string>();
      if (!resolved->json_value && resolved->default_value &&
          resolved->default_value->kind == Value::Kind::kString) {
        return resolved->default_value->text;
      }
      return Error("GraphQL operation: " + what + " takes $" + value->text +
                   ", which is not a string");
    }
    if (value->kind != Value::Kind::kString)
      return Error("GraphQL operation: " + what + " is not a string");
    return value->text;
  }

  struct Resolved {
    const json* json_value = nullptr;      // the request's value for the variable
    const Value* default_value = nullptr;  // else the definition's default
  };

  Result<Resolved> Resolve(const std::string& name) {
    auto def = definitions_.find(name);
    if (def == definitions_.end()) return Error("GraphQL operation: $" + name + " is not defined");
    Resolved resolved;
    auto given = variables_.find(name);
    if (given != variables_.end())
      resolved.json_value = &*given;
    else if (def->second->default_value)
      resolved.default_value = &*def->second->default_value;
    return resolved;
  }

  Result<void> CountValue() {
    if (++values_ > kMaxValues) return Error("GraphQL operation has too many argument values");
    return Ok();
  }

  // Records the ids and repositories an argument value names, at any depth
  // of input objects and lists; `key` is the name the value stands under.
  Result<void> CollectValue(const std::string& key, const Value& value) {
    auto counted = CountValue();
    if (!counted.ok()) return counted;
    switch (value.kind) {
      case Value::Kind::kVariable: {
        auto resolved = Resolve(value.text);
        if (!resolved.ok()) return resolved.error();
        if (resolved->json_value) return CollectJson(key, *resolved->json_value);
        if (resolved->default_value) return CollectValue(key, *resolved->default_value);
        return Ok();  // absent: null, naming nothing
      }
      case Value::Kind::kNull: return Ok();
      case Value::Kind::kList:
        for (const Value& item : value.items) {
          auto ok = CollectValue(key, item);
          if (!ok.ok()) return ok;
        }
        return Ok();
      case Value::Kind::kObject:
        for (std::size_t i = 0; i < value.items.size(); ++i) {
          auto ok = CollectValue(value.keys[i], value.items[i]);
          if (!ok.ok()) return ok;
        }
        return Ok();
      case Value::Kind::kString: return CollectScalar(key, value.text, true);
      case Value::Kind::kInt: return CollectScalar(key, value.text, false);
      default: return CollectOther(key);
    }
  }

  Result<void> CollectJson(const std::string& key, const json& value) {
    auto counted = CountValue();
    if (!counted.ok()) return counted;
    if (value.is_null()) return Ok();
    if (value.is_array()) {
      for (const json& item : value) {
        auto ok = CollectJson(key, item);
        if (!ok.ok()) return ok;
      }
      return Ok();
    }
    if (value.is_object()) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        auto ok = CollectJson(it.key(), it.value());
        if (!ok.ok()) return ok;
      }
      return Ok();
    }
    if (value.is_string()) return CollectScalar(key, value.get<std::string>(), true);
    if (value.is_number_integer()) return CollectScalar(key, value.dump(), false);
    return CollectOther(key);
  }

  Result<void> CollectScalar(const std::string& key, const std::string& text, bool is_string) {
    IdRole role = IdRoleOf(key);
    if (role == IdRole::kNode) Add(out_.node_ids, node_seen_, text);
    if (role == IdRole::kActor) Add(out_.actor_ids, actor_seen_, text);
    if (key == "repositoryNameWithOwner" || key == "subIssueUrl") {
      if (!is_string) return Error("GraphQL operation: " + key + " is not a string");
      auto repo = key == "subIssueUrl" ? RepoOfIssueUrl(text) : RepoOfFullName(text);
      if (!repo.ok()) return repo.error();
      Add(out_.repos, repo_seen_, *repo);
    }
    return Ok();
  }

  // A float, boolean or enum names nothing, unless it stands where an id
  // or a repository must: then the request cannot be read.
  Result<void> CollectOther(const std::string& key) {
    if (IdRoleOf(key) != IdRole::kNone || key == "repositoryNameWithOwner" ||
        key == "subIssueUrl") {
      return Error("GraphQL operation: " + key + " holds neither a string nor a number");
    }
    return Ok();
  }

  static Result<std::string> RepoOfFullName(std::string_view text) {
    std::size_t slash = text.find('/');
    if (slash == 0 || slash == std::string_view::npos || slash + 1 == text.size() ||
        text.find('/', slash + 1) != std::string_view::npos) {
      return Error("GraphQL operation: \"" + std::string(text.substr(0, 100)) +
                   "\" is not owner/name");
    }
    return Lower(std::string(text));
  }

  // https://github.com/OWNER/NAME/issues/N: the repository it names.
  static Result<std::string> RepoOfIssueUrl(std::string_view url) {
    constexpr std::string_view kPrefix = "https://github.com/";
    std::string lowered = Lower(std::string(url.substr(0, kPrefix.size())));
    if (lowered != kPrefix) return Error("GraphQL operation: an issue URL not on github.com");
    std::string_view path = url.substr(kPrefix.size());
    std::size_t first = path.find('/');
    std::size_t second = first == std::string_view::npos ? first : path.find('/', first + 1);
    if (second == std::string_view::npos)
      return Error("GraphQL operation: an issue URL without owner and name");
    return RepoOfFullName(path.substr(0, second));
  }

  static void Add(std::vector<std::string>& list, std::set<std::string>& seen,
                  const std::string& item) {
    if (seen.insert(item).second) list.push_back(item);
  }

  const Document& doc_;
  const Operation& op_;
  const json& variables_;
  GraphqlRequest& out_;
  std::map<std::string, const Fragment*> fragments_;
  std::map<std::string, const VariableDefinition*> definitions_;
  std::set<std::string> active_;  // fragments being walked, to find cycles
  std::set<std::string> repo_seen_, node_seen_, actor_seen_, root_seen_, mutation_seen_;
  int selections_ = 0;
  int values_ = 0;
};

}  // namespace

Result<void> WalkOperation(const Document& doc, const Operation& operation, const json& variables,
                           GraphqlRequest& out) {
  return Walker(doc, operation, variables, out).Run();
}

}  // namespace corral::netfilter::forge::graphql
