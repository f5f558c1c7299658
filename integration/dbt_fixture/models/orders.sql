{{ orders_data() }}
