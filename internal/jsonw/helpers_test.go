package jsonw_test

import "reflect"

func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }
