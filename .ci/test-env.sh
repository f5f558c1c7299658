# Database URLs the integration suite reads (sourced by .ci/run; source it yourself to run
# `make test` against the local servers after `bash .ci/services.sh`).
export PACKATA_TEST_POSTGRES_URL="postgresql://postgres@127.0.0.1:5432/${PACKATA_TEST_DB:-packata_test}"
export PACKATA_TEST_POSTGRES_RO_URL="postgresql://packata_ro:packata_ro@127.0.0.1:5432/${PACKATA_TEST_DB:-packata_test}"
export PACKATA_TEST_MYSQL_URL="mysql://root@127.0.0.1:3306/${PACKATA_TEST_DB:-packata_test}"
export PACKATA_TEST_MYSQL_RO_URL="mysql://packata_ro:packata_ro@127.0.0.1:3306/${PACKATA_TEST_DB:-packata_test}"
