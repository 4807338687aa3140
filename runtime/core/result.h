// Result<T>: a value or an Error, without exceptions or heap. The only error-handling macros of the
// project live here: ET_TRY, ET_CHECK_OR_RETURN, ET_CHECK (abort on broken invariant), ET_DCHECK.
#pragma once
#include <stddef.h>

#include "runtime/core/error.h"
#include "runtime/core/traits.h"

extern "C" void et_pal_abort(void);

namespace etmcu {

// Tag for a Result whose value is default-constructed in place (a large object filled where it
// will stay: no move of it into the Result).
struct InPlace {};

template <typename T>
class [[nodiscard]] Result {
 public:
  explicit Result(InPlace) : ok_(true) { new (&storage_) T(); }
  Result(const T& value) : ok_(true) {
    new (&storage_) T(value);
  }  // NOLINT(google-explicit-constructor)
  Result(T&& value) : ok_(true) { new (&storage_) T(static_cast<T&&>(value)); }  // NOLINT
  Result(Error error)
      : ok_(false), error_(error == Error::Ok ? Error::Internal : error) {}  // NOLINT
  Result(const Result& other) : ok_(other.ok_), error_(other.error_) {
    if (ok_) new (&storage_) T(*other.ptr());
  }
  Result(Result&& other) : ok_(other.ok_), error_(other.error_) {
    if (ok_) new (&storage_) T(static_cast<T&&>(*other.ptr()));
  }
  Result& operator=(const Result&) = delete;
  ~Result() {
    if (ok_) ptr()->~T();
  }

  // Turns a Result made in place into an error (the value is destroyed).
  void set_error(Error error) {
    if (ok_) ptr()->~T();
    ok_ = false;
    error_ = error == Error::Ok ? Error::Internal : error;
  }

  bool ok() const { return ok_; }
  Error error() const { return ok_ ? Error::Ok : error_; }
  // Reading the value of an error is a broken invariant: debug builds (the sanitizer and fuzz
  // presets define ET_DEBUG) abort on it; release builds do not pay for the check.
  T& get() { return *checked(); }
  const T& get() const { return *checked(); }
  T& operator*() { return *checked(); }
  const T& operator*() const { return *checked(); }
  T* operator->() { return checked(); }
  const T* operator->() const { return checked(); }

 private:
  T* checked() {
    debug_check_ok();
    return ptr();
  }
  const T* checked() const {
    debug_check_ok();
    return ptr();
  }
  void debug_check_ok() const {
#ifdef ET_DEBUG
    if (!ok_) et_pal_abort();
#endif
  }
  T* ptr() { return reinterpret_cast<T*>(&storage_); }
  const T* ptr() const { return reinterpret_cast<const T*>(&storage_); }
  alignas(T) unsigned char storage_[sizeof(T)];
  bool ok_;
  Error error_ = Error::Ok;
};

}  // namespace etmcu

// Evaluates a Result-returning expression; on error returns that error from the enclosing function,
// else assigns the value to `lhs` (a declaration such as `auto x` or an lvalue).
#define ET_TRY(lhs, expr)                                                                \
  auto ET_CONCAT_(et_try_, __LINE__) = (expr);                                           \
  if (!ET_CONCAT_(et_try_, __LINE__).ok()) return ET_CONCAT_(et_try_, __LINE__).error(); \
  lhs = static_cast<decltype(ET_CONCAT_(et_try_, __LINE__).get())&&>(                    \
      ET_CONCAT_(et_try_, __LINE__).get())

// Returns `error` from the enclosing function when `cond` is false.
#define ET_CHECK_OR_RETURN(cond, error) \
  do {                                  \
    if (!(cond)) return (error);        \
  } while (0)

// Aborts through the PAL when an internal invariant is broken (never for bad input).
#define ET_CHECK(cond)           \
  do {                           \
    if (!(cond)) et_pal_abort(); \
  } while (0)

#ifdef ET_DEBUG
#define ET_DCHECK(cond) ET_CHECK(cond)
#else
#define ET_DCHECK(cond) \
  do {                  \
  } while (0)
#endif

#define ET_CONCAT_INNER_(a, b) a##b
#define ET_CONCAT_(a, b) ET_CONCAT_INNER_(a, b)
